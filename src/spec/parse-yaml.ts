/**
 * Parses an agent file's YAML under the limits of docs/spec.md#9-limits-on-input: a size cap, YAML 1.2 core schema only,
 * no custom tags, aliases refused, a nesting-depth cap, and a linear-time duplicate-key check
 * (the `yaml` package's own check is quadratic: 40,000 keys take seconds). Every error names the
 * file, line and column, with code INVALID_AGENT (INPUT_TOO_LARGE for the size cap).
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { AgentError } from '../core/agent-error.js';

export interface YamlLimits {
  /** Largest agent file in bytes (default 256 KiB). */
  maxBytes?: number;
  /** Deepest nesting of maps and lists (default 64). */
  maxDepth?: number;
  /** Most keys plus items in the whole document (default 20,000). */
  maxNodes?: number;
}

/** A position in the agent file, 1-based. */
export interface SourcePosition {
  line: number;
  column: number;
}

export interface ParsedYaml {
  value: unknown;
  /** Looks up where a value sits, by its path (`['nodes', 2, 'goto']`); falls back to the nearest parent. */
  positionOf(path: ReadonlyArray<string | number>): SourcePosition | undefined;
  /** The line where a scalar's text starts (the line after `|` or `>` for block scalars). */
  contentLineOf(path: ReadonlyArray<string | number>): number | undefined;
  /** Where the key of a mapping entry sits (for "unknown key" errors); falls back to positionOf. */
  keyPositionOf(path: ReadonlyArray<string | number>): SourcePosition | undefined;
}

const CORE_TAGS = new Set([
  'tag:yaml.org,2002:str',
  'tag:yaml.org,2002:int',
  'tag:yaml.org,2002:float',
  'tag:yaml.org,2002:bool',
  'tag:yaml.org,2002:null',
  'tag:yaml.org,2002:map',
  'tag:yaml.org,2002:seq',
]);

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function parseYaml(source: string, file = 'agent.yaml', limits: YamlLimits = {}): ParsedYaml {
  const maxBytes = limits.maxBytes ?? 256 * 1024;
  const maxDepth = limits.maxDepth ?? 64;
  const maxNodes = limits.maxNodes ?? 20_000;
  if (typeof source !== 'string') {
    throw new AgentError('INVALID_AGENT', 'the agent file must be text', { file });
  }
  const size = new TextEncoder().encode(source).length;
  if (size > maxBytes) {
    throw new AgentError('INPUT_TOO_LARGE', `agent file is ${size} bytes, over the ${maxBytes}-byte limit`, {
      file,
      details: { size, limit: maxBytes },
    });
  }
  checkFlowDepth(source, file, maxDepth);
  checkEntryEstimate(source, file, maxNodes);

  const lineCounter = new LineCounter();
  const document = parseDocument(source, {
    lineCounter,
    schema: 'core',
    version: '1.2',
    uniqueKeys: false,
    prettyErrors: false,
    strict: true,
  });
  const at = (offset: number | undefined): SourcePosition => {
    const position = lineCounter.linePos(offset ?? 0);
    return { line: position.line, column: position.col };
  };
  const firstError = document.errors[0];
  if (firstError !== undefined) {
    const position = at(firstError.pos[0]);
    throw new AgentError('INVALID_AGENT', `YAML: ${firstError.message.split('\n')[0]}`, {
      file,
      ...position,
      details: { yaml_code: firstError.code },
    });
  }

  const positions = new Map<string, number>();
  const keyPositions = new Map<string, number>();
  const blockScalars = new Set<string>();
  let nodeCount = 0;
  const walk = (node: unknown, path: Array<string | number>, depth: number): unknown => {
    if (node === null || node === undefined) return null;
    const yamlNode = node as Node;
    const offset = yamlNode.range?.[0];
    if (offset !== undefined) positions.set(pathKey(path), offset);
    const fail = (message: string): never => {
      throw new AgentError('INVALID_AGENT', message, { file, ...at(offset) });
    };
    if (isAlias(yamlNode)) fail('YAML aliases (*name) are not allowed in agent files');
    const tag = (yamlNode as { tag?: string }).tag;
    if (tag !== undefined && !CORE_TAGS.has(tag))
      fail(`YAML tag '${tag}' is not allowed (only the YAML 1.2 core schema)`);
    if (++nodeCount > maxNodes) fail(`agent file has more than ${maxNodes} keys and items`);
    if (depth > maxDepth) fail(`agent file nests deeper than ${maxDepth} levels`);
    if (isScalar(yamlNode)) {
      if (yamlNode.type === 'BLOCK_LITERAL' || yamlNode.type === 'BLOCK_FOLDED') blockScalars.add(pathKey(path));
      return yamlNode.value ?? null;
    }
    if (isSeq(yamlNode)) {
      return yamlNode.items.map((item, index) => walk(item, [...path, index], depth + 1));
    }
    if (isMap(yamlNode)) {
      const result: Record<string, unknown> = {};
      const seen = new Set<string>();
      for (const pair of yamlNode.items) {
        const keyNode = pair.key as Node | null;
        if (keyNode !== null && isAlias(keyNode)) fail('YAML aliases (*name) are not allowed in agent files');
        const rawKey = keyNode !== null && isScalar(keyNode) ? keyNode.value : undefined;
        if (rawKey === undefined || (typeof rawKey === 'object' && rawKey !== null)) {
          throw new AgentError('INVALID_AGENT', 'map keys must be plain scalars', {
            file,
            ...at(keyNode?.range?.[0] ?? offset),
          });
        }
        const key = String(rawKey);
        const keyOffset = keyNode?.range?.[0];
        if (seen.has(key)) {
          throw new AgentError('INVALID_AGENT', `duplicate key '${key}'`, { file, ...at(keyOffset) });
        }
        seen.add(key);
        if (FORBIDDEN_KEYS.has(key)) {
          throw new AgentError('INVALID_AGENT', `key '${key}' is not allowed`, { file, ...at(keyOffset) });
        }
        if (keyOffset !== undefined) {
          positions.set(pathKey([...path, key]), keyOffset);
          keyPositions.set(pathKey([...path, key]), keyOffset);
        }
        const value = walk(pair.value, [...path, key], depth + 1);
        Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
      }
      return result;
    }
    return fail('unsupported YAML node');
  };
  const value = walk(document.contents, [], 0);

  const positionOf = (path: ReadonlyArray<string | number>): SourcePosition | undefined => {
    for (let length = path.length; length >= 0; length--) {
      const offset = positions.get(pathKey(path.slice(0, length)));
      if (offset !== undefined) return at(offset);
    }
    return undefined;
  };
  return {
    value,
    positionOf,
    keyPositionOf(path) {
      const offset = keyPositions.get(pathKey(path));
      return offset !== undefined ? at(offset) : positionOf(path);
    },
    contentLineOf(path) {
      const offset = positions.get(pathKey(path));
      if (offset === undefined) return undefined;
      const line = at(offset).line;
      return blockScalars.has(pathKey(path)) ? line + 1 : line;
    },
  };
}

function pathKey(path: ReadonlyArray<string | number>): string {
  return path.map((part) => String(part).replaceAll('/', '~1')).join('/');
}

/**
 * The YAML parser needs about a second for 40,000 keys, so a text with more lines plus commas than
 * the node cap allows is refused before parsing (every key or item needs a line or a comma).
 */
function checkEntryEstimate(source: string, file: string, maxNodes: number): void {
  let entries = 0;
  for (let index = 0; index < source.length; index++) {
    const code = source.charCodeAt(index);
    if (code === 10 || code === 44) entries++;
  }
  if (entries > maxNodes * 2) {
    throw new AgentError(
      'INVALID_AGENT',
      `agent file has more than ${maxNodes} keys and items (about ${entries} lines and commas)`,
      { file, line: 1, column: 1 },
    );
  }
}

/**
 * A quick scan for flow-collection nesting ([ and {) before the YAML parser sees the text, so a
 * 10,000-deep `[[[[…` fails in microseconds. Quoted strings and comments are skipped.
 */
function checkFlowDepth(source: string, file: string, maxDepth: number): void {
  let depth = 0;
  let line = 1;
  let lineStart = 0;
  let quote = '';
  for (let index = 0; index < source.length; index++) {
    const char = source[index];
    if (char === '\n') {
      line++;
      lineStart = index + 1;
      if (quote === '') continue;
    }
    if (quote !== '') {
      if (char === '\\' && quote === '"') index++;
      else if (char === quote) quote = '';
      continue;
    }
    if (char === '#' && (index === 0 || /\s/.test(source[index - 1] ?? ''))) {
      const end = source.indexOf('\n', index);
      index = end === -1 ? source.length : end - 1;
    } else if ((char === '"' || char === "'") && (index === 0 || /[\s[{,:]/.test(source[index - 1] ?? ''))) {
      quote = char;
    } else if (char === '[' || char === '{') {
      if (++depth > maxDepth) {
        throw new AgentError('INVALID_AGENT', `agent file nests deeper than ${maxDepth} levels`, {
          file,
          line,
          column: index - lineStart + 1,
        });
      }
    } else if ((char === ']' || char === '}') && depth > 0) {
      depth--;
    }
  }
}
