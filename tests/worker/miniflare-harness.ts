/**
 * Runs the real worker bundle (dist-equivalent, built by build/targets/30-worker.mjs with the test
 * agents of tests/worker/agents) in plain Miniflare: no vitest pool, so workerd refuses code
 * generation exactly as production does.
 */
import { Miniflare } from 'miniflare';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The package root, found upwards from this module (it also runs bundled into dist/bench.js). */
export function packageRoot(): string {
  let directory = import.meta.dirname;
  for (;;) {
    const manifest = path.join(directory, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'tea-edge')
      return directory;
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error('tea-edge package root not found');
    directory = parent;
  }
}

const root = packageRoot();
export const COMPATIBILITY_DATE = '2026-05-01';
/** As in wrangler.toml: `request.signal` aborts when the client goes away. */
export const COMPATIBILITY_FLAGS = ['enable_request_signal'];

/** Bundles worker/cloudflare/cloudflare.ts with the test agents (checked like a production build). */
export async function bundleTestWorker(entry = 'worker/cloudflare/cloudflare.ts'): Promise<string> {
  const { bundleWorker } = await import(pathToFileURL(path.join(root, 'build/targets/30-worker.mjs')).href);
  const { text } = (await bundleWorker({ root, entry, agentsDir: 'tests/worker/agents', minify: true })) as {
    text: string;
  };
  return text;
}

export interface WorkerOptions {
  bindings?: Record<string, string>;
  /** A directory to persist KV in, shared by instances that should see the same data. */
  kvPersist?: string;
}

/** Starts a Miniflare instance running the bundle with a TRACES KV namespace. */
export async function startWorker(script: string, options: WorkerOptions = {}): Promise<Miniflare> {
  const miniflare = new Miniflare({
    modules: true,
    script,
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: COMPATIBILITY_FLAGS,
    kvNamespaces: ['TRACES'],
    bindings: options.bindings ?? {},
    ...(options.kvPersist !== undefined ? { kvPersist: options.kvPersist } : {}),
  });
  await miniflare.ready;
  return miniflare;
}

/** Sends a JSON request to the worker. */
export async function call(
  miniflare: Miniflare,
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await miniflare.dispatchFetch(`http://worker.test${route}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: jsonOrUndefined(text) };
}

/** The JSON value of a response text, or undefined when it is not JSON. */
export function jsonOrUndefined(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One parsed SSE event. */
export interface SseEvent {
  event: string;
  data: any;
  id?: string;
}

/** Parses SSE text into events. */
export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      const id = lines.find((line) => line.startsWith('id: '))?.slice(4);
      return { event, data: JSON.parse(data), ...(id !== undefined ? { id } : {}) };
    });
}
