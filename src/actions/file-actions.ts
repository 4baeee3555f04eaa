/**
 * TEA's `file.read` and `file.write` (docs/shared/yaml-reference/actions/io.md), through the
 * host's file seam (src/core/file-store.ts) instead of a file system: every path is relative to
 * the root the host gave (`tea-edge run --files DIR`, OPFS, an R2 bucket, a Deno folder) and can
 * never leave it (src/util/rooted-path.ts refuses the whole class: `..`, absolute paths, drive
 * letters, backslashes, NUL, URL encoding, URLs). Reads and writes are capped.
 *
 *   - { name: load, uses: file.read, with: { path: "notes/{{ state.topic }}.txt" }, output: note }
 *   - { name: save, uses: file.write, with: { path: out/summary.md, content: "{{ state.summary }}" } }
 *
 * Differences from TEA, on purpose: a missing file is NOT_FOUND and a refused path INVALID_PARAMS
 * (typed errors the node's on_error decides about) rather than `{success: false}`; remote URIs
 * (s3://, gs://, memory://) are refused, the host's root is the only place; text is UTF-8 only.
 * A `content` that is not text is written as JSON.
 */
import { AgentError } from '../core/agent-error.js';
import { normalizeRootedPath, rootedPathRefusal } from '../util/rooted-path.js';
import type { FileStore } from '../core/file-store.js';
import type { CompiledValue } from '../templates/types.js';
import type { ActionCompiler, ActionContext, ActionDefinition } from '../core/action.js';
import { quoteText } from '../util/cut-text.js';

/** Bytes `file.read` returns unless `max_bytes` says less; and the most it may say. */
export const DEFAULT_READ_BYTES = 1024 * 1024;
export const MAX_READ_BYTES = 8 * 1024 * 1024;
/** The largest content `file.write` writes. */
export const MAX_WRITE_BYTES = 4 * 1024 * 1024;

const ENCODINGS = ['utf-8', 'utf8'] as const;

type Compiled = Record<string, CompiledValue>;

/** Compiles every param as a template; a literal path is checked now, so a bad one is a load error. */
function prepare(params: Record<string, unknown>, compiler: ActionCompiler): Compiled {
  const path = params['path'];
  if (typeof path === 'string' && !path.includes('{{') && !path.includes('{%')) {
    const refusal = rootedPathRefusal(path);
    if (refusal !== undefined) throw compiler.error(`\`path\` ${quoteText(path, 80)} is refused: ${refusal}`, 'path');
  }
  return Object.fromEntries(Object.entries(params).map(([key, value]) => [key, compiler.template(value, key)]));
}

/** The rendered params, with the path in its rooted normal form and the encoding checked. */
function render(compiled: Compiled, context: ActionContext): { params: Record<string, unknown>; path: string } {
  const scope = context.scope();
  const params = Object.fromEntries(Object.entries(compiled).map(([key, value]) => [key, value.render(scope)]));
  const encoding = params['encoding'];
  if (encoding !== undefined && encoding !== null && !(ENCODINGS as readonly unknown[]).includes(encoding)) {
    throw new AgentError('INVALID_PARAMS', `\`encoding\` must be utf-8 (tea-edge reads and writes UTF-8 text)`, {
      field: 'encoding',
    });
  }
  return { params, path: normalizeRootedPath(params['path'], 'path') };
}

/** The host's file root, or a typed error saying how each host gives one. */
function storeOf(context: ActionContext, action: string): FileStore {
  if (context.files !== undefined) return context.files;
  throw new AgentError(
    'FORBIDDEN',
    `${action} needs a file root from the host, and this run has none (CLI: --files DIR; Workers: an R2 bucket bound as FILES; browser: OPFS)`,
    { field: 'path', details: { action } },
  );
}

const PATH = {
  type: 'string',
  minLength: 1,
  description: 'a path inside the host file root (no .., no absolute path)',
} as const;
const ENCODING = { enum: [...ENCODINGS], default: 'utf-8' } as const;

export const fileRead: ActionDefinition<Compiled> = {
  name: 'file.read',
  description: 'Reads a UTF-8 text file from the host file root. Returns {content, path, bytes, success}.',
  parameters: {
    type: 'object',
    required: ['path'],
    properties: {
      path: PATH,
      encoding: ENCODING,
      max_bytes: { type: 'integer', minimum: 1, maximum: MAX_READ_BYTES, default: DEFAULT_READ_BYTES },
    },
    additionalProperties: false,
  },
  sideEffects: false,
  prepare,
  async run(compiled, context) {
    const { params, path } = render(compiled, context);
    const limit = params['max_bytes'] ?? DEFAULT_READ_BYTES;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_READ_BYTES) {
      throw new AgentError('INVALID_PARAMS', `\`max_bytes\` must be an integer from 1 to ${MAX_READ_BYTES}`, {
        field: 'max_bytes',
      });
    }
    const store = storeOf(context, 'file.read');
    const bytes = await store.read(path, limit);
    if (bytes === undefined)
      throw new AgentError('NOT_FOUND', `file '${path}' does not exist in ${store.description}`, {
        field: 'path',
        details: { path },
      });
    if (bytes.byteLength > limit) {
      throw new AgentError(
        'INPUT_TOO_LARGE',
        `file '${path}' is larger than ${limit} bytes (raise max_bytes, at most ${MAX_READ_BYTES})`,
        { field: 'path', details: { path, max_bytes: limit } },
      );
    }
    let content: string;
    try {
      content = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
    } catch {
      throw new AgentError('ACTION_FAILED', `file '${path}' is not UTF-8 text`, { field: 'path', details: { path } });
    }
    return { content, path, bytes: bytes.byteLength, success: true };
  },
};

export const fileWrite: ActionDefinition<Compiled> = {
  name: 'file.write',
  description:
    'Writes text (other values as JSON) to a file under the host file root, creating its folders. Returns {path, bytes, success}.',
  parameters: {
    type: 'object',
    required: ['path', 'content'],
    properties: {
      path: PATH,
      content: { description: 'text; any other value is written as JSON' },
      encoding: ENCODING,
    },
    additionalProperties: false,
  },
  sideEffects: true,
  prepare,
  async run(compiled, context) {
    const { params, path } = render(compiled, context);
    const content = params['content'];
    if (content === undefined) throw new AgentError('INVALID_PARAMS', '`content` is required', { field: 'content' });
    const text = typeof content === 'string' ? content : JSON.stringify(content);
    const bytes = new TextEncoder().encode(text);
    if (bytes.byteLength > MAX_WRITE_BYTES) {
      throw new AgentError(
        'INPUT_TOO_LARGE',
        `content for '${path}' is ${bytes.byteLength} bytes, over the ${MAX_WRITE_BYTES}-byte cap of file.write`,
        { field: 'content', details: { path } },
      );
    }
    await storeOf(context, 'file.write').write(path, bytes);
    return { path, bytes: bytes.byteLength, success: true };
  },
};

export function fileActions(): ActionDefinition[] {
  return [fileRead, fileWrite] as ActionDefinition[];
}
