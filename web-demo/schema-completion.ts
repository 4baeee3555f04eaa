/**
 * Key completion for agent YAML from the agent JSON Schema: finds the chain of parent keys of
 * the line being typed (by indentation) and offers the property names the schema allows there.
 * Pure functions over text, so they are tested in Node.
 */
import { isPlainObject } from '../src/util/plain-object.js';

export type JsonSchemaNode = Record<string, unknown>;

/** The keys the schema allows for the line before `offset` in `text`, with their descriptions. */
export function keysAt(schema: JsonSchemaNode, text: string, offset: number): { key: string; description?: string }[] {
  const before = text.slice(0, offset);
  const lines = before.split('\n');
  const current = lines[lines.length - 1] ?? '';
  const match = /^(\s*)(- )?([A-Za-z_]*)$/.exec(current);
  if (!match) return [];
  const indent = match[1]!.length + (match[2] ? 2 : 0);
  const path = parentPath(lines.slice(0, -1), indent, Boolean(match[2]));
  const target = resolvePath(schema, schema, path);
  if (!target) return [];
  const properties = collectProperties(schema, target);
  return Object.entries(properties).map(([key, value]) => {
    const description = typeof value.description === 'string' ? value.description : undefined;
    return description ? { key, description } : { key };
  });
}

/**
 * Parent keys of a line whose content starts at column `indent`: walking up, a `key:` line
 * indented less is a parent; a `- ` line whose content sits at or left of ours is the list item
 * we are in (written as `[]` in the path). `startsItem`: the line itself begins with `- `.
 */
export function parentPath(lines: string[], indent: number, startsItem: boolean): string[] {
  const path: string[] = startsItem ? ['[]'] : [];
  // A half step lets a key at the item's own indentation (`nodes:` over `- name:`) be the parent.
  let limit = startsItem ? indent - 2 + 0.5 : indent;
  for (let index = lines.length - 1; index >= 0 && limit > 0; index--) {
    const line = lines[index]!;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const lineIndent = line.length - line.trimStart().length;
    const dash = /^- /.test(trimmed) || trimmed === '-';
    const content = dash ? trimmed.replace(/^-\s*/, '') : trimmed;
    const key = /^([^\s:#'"][^:#]*?)\s*:(\s|$)/.exec(content)?.[1];
    const contentIndent = lineIndent + (dash ? line.slice(lineIndent).length - content.length : 0);
    if (dash) {
      if (lineIndent >= limit - 0.5 || contentIndent > limit) continue;
      if (contentIndent < limit && key) path.unshift(key);
      path.unshift('[]');
      limit = lineIndent + 0.5;
    } else if (lineIndent < limit) {
      if (key) path.unshift(key);
      limit = lineIndent;
    }
  }
  return path;
}

function resolvePath(root: JsonSchemaNode, schema: JsonSchemaNode, path: string[]): JsonSchemaNode | undefined {
  let current: JsonSchemaNode | undefined = deref(root, schema);
  for (const step of path) {
    if (!current) return undefined;
    if (step === '[]') {
      current = deref(root, firstWith(root, current, 'items'));
      continue;
    }
    const properties = collectProperties(root, current);
    current = properties[step] ? deref(root, properties[step]) : undefined;
  }
  return current;
}

function collectProperties(root: JsonSchemaNode, schema: JsonSchemaNode): Record<string, JsonSchemaNode> {
  const resolved = deref(root, schema) ?? {};
  const result: Record<string, JsonSchemaNode> = {};
  const own = resolved.properties;
  if (isPlainObject(own)) for (const [key, value] of Object.entries(own)) if (isPlainObject(value)) result[key] = value;
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
    const parts = resolved[keyword];
    if (Array.isArray(parts))
      for (const part of parts)
        if (isPlainObject(part)) Object.assign(result, collectProperties(root, part), { ...result });
  }
  return result;
}

function firstWith(root: JsonSchemaNode, schema: JsonSchemaNode, keyword: string): JsonSchemaNode | undefined {
  const resolved = deref(root, schema);
  if (!resolved) return undefined;
  if (isPlainObject(resolved[keyword])) return resolved[keyword] as JsonSchemaNode;
  for (const combiner of ['anyOf', 'oneOf', 'allOf']) {
    const parts = resolved[combiner];
    if (!Array.isArray(parts)) continue;
    for (const part of parts) {
      const found = isPlainObject(part) ? firstWith(root, part, keyword) : undefined;
      if (found) return found;
    }
  }
  return undefined;
}

function deref(root: JsonSchemaNode, schema: JsonSchemaNode | undefined, depth = 0): JsonSchemaNode | undefined {
  if (!schema || depth > 20) return schema;
  const reference = schema.$ref;
  if (typeof reference !== 'string' || !reference.startsWith('#/')) return schema;
  let target: unknown = root;
  for (const part of reference.slice(2).split('/'))
    target = isPlainObject(target) ? target[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return isPlainObject(target) ? deref(root, target, depth + 1) : undefined;
}
