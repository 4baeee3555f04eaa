/**
 * The action reference (docs/actions.md), rendered from the registry: every built-in action with
 * its description, whether it has side effects, its parameters (type, default, required,
 * description) from its JSON Schema, and its result (each key, type and description). `tests/build/action-reference.test.ts` checks the file is
 * current; `TEA_WRITE_DOCS=1 npx vitest run tests/build/action-reference.test.ts` rewrites it.
 */
import type { ActionDefinition } from '../../src/core/action.js';
import { ACTION_RESULTS } from '../../src/actions/action-results.js';

type Schema = Record<string, unknown>;

export function renderActionReference(actions: readonly ActionDefinition[]): string {
  const sorted = [...actions].sort((left, right) => left.name.localeCompare(right.name));
  const lines = [
    '# Action reference',
    '',
    '<!-- Generated from the action registry by tests/support/action-reference.ts; do not edit by hand.',
    '     Rewrite: TEA_WRITE_DOCS=1 npx vitest run tests/build/action-reference.test.ts -->',
    '',
    `Every built-in action (${sorted.length}), with the parameters its node's \`with:\` takes. A key not listed`,
    "is a load error naming the closest known one where the action's parameters are closed",
    '(`additional keys: no`), and what it returns. Semantics and TEA differences: [spec.md](spec.md) and',
    '[porting-from-tea.md](porting-from-tea.md).',
    '',
    ...sorted.map((action) => `- [\`${action.name}\`](#${anchor(action.name)})`),
    '',
  ];
  for (const action of sorted) lines.push(...renderAction(action));
  return `${lines.join('\n').trimEnd()}\n`;
}

function renderAction(action: ActionDefinition): string[] {
  const schema = (action.parameters ?? {}) as Schema;
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const lines = [`## ${action.name}`, '', oneLine(action.description), ''];
  const facts = [`side effects: ${action.sideEffects === true ? 'yes' : 'no'}`];
  if (schema.additionalProperties === false) facts.push('additional keys: no');
  lines.push(facts.join(' · '), '');
  const names = Object.keys(properties);
  if (names.length === 0) {
    lines.push('No parameters are declared.', '');
  } else {
    lines.push('| parameter | type | default | required | description |', '| --- | --- | --- | --- | --- |');
    for (const name of names) {
      const property = isSchema(properties[name]) ? (properties[name] as Schema) : {};
      const defaultValue = property.default === undefined ? '' : `\`${JSON.stringify(property.default)}\``;
      lines.push(
        `| \`${name}\` | ${typeOf(property)} | ${defaultValue} | ${required.has(name) ? 'yes' : ''} | ${cell(describe(property))} |`,
      );
    }
    lines.push('');
  }
  lines.push(...renderResult(ACTION_RESULTS[action.name] as Schema | undefined));
  return lines;
}

function renderResult(result: Schema | undefined): string[] {
  if (result === undefined) return ['No result is declared.', ''];
  const properties = isSchema(result.properties) ? result.properties : undefined;
  if (properties === undefined) return [`**Result:** ${oneLine(describe(result))}`, ''];
  const lines = ['| result key | type | description |', '| --- | --- | --- |'];
  for (const [name, value] of Object.entries(properties)) {
    const property = isSchema(value) ? value : {};
    lines.push(`| \`${name}\` | ${typeOf(property)} | ${cell(describe(property))} |`);
  }
  return [...lines, ''];
}

function typeOf(schema: Schema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(' \\| ');
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.join(' \\| ');
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key]))
      return (schema[key] as Schema[]).map((item) => (isSchema(item) ? typeOf(item) : 'any')).join(' \\| ');
  }
  return 'any';
}

function describe(schema: Schema): string {
  const parts: string[] = [];
  if (typeof schema.description === 'string') parts.push(schema.description);
  const bounds: string[] = [];
  if (typeof schema.minimum === 'number') bounds.push(`≥ ${schema.minimum}`);
  if (typeof schema.exclusiveMinimum === 'number') bounds.push(`> ${schema.exclusiveMinimum}`);
  if (typeof schema.maximum === 'number') bounds.push(`≤ ${schema.maximum}`);
  if (typeof schema.maxLength === 'number') bounds.push(`at most ${schema.maxLength} characters`);
  if (bounds.length > 0) parts.push(`(${bounds.join(', ')})`);
  return parts.join(' ');
}

function cell(text: string): string {
  return oneLine(text).replace(/\|/g, '\\|');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function anchor(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9 _-]/g, '');
}

function isSchema(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
