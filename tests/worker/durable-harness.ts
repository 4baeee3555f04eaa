/**
 * Miniflare with the run coordinator: the bundled worker (tests/worker/agents) with its RUNS
 * Durable Object namespace on SQLite storage, as wrangler.toml declares it, plus the TRACES KV
 * index. Instances given the same `persist` directory share both stores (a restarted deployment).
 */
import { Miniflare } from 'miniflare';
import path from 'node:path';
import { COMPATIBILITY_DATE, COMPATIBILITY_FLAGS } from './miniflare-harness.js';
import type { MockOpenAI } from '../support/mock-openai-server.js';

export interface DurableWorkerOptions {
  bindings?: Record<string, string>;
  /** A directory holding the KV and Durable Object data, shared by instances that should share runs. */
  persist?: string;
}

/**
 * Starts the worker, and a second copy of it (`edge-b`, another isolate, as in another location)
 * bound to the same RUNS namespace: both reach the one object of a run, as on Cloudflare. (Two
 * Miniflare instances sharing a persist directory would each run their own copy of an object,
 * which Cloudflare never does; they model a restart, not two locations.)
 */
export async function startDurableWorker(script: string, options: DurableWorkerOptions = {}): Promise<Miniflare> {
  const worker = {
    modules: true,
    script,
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: COMPATIBILITY_FLAGS,
    kvNamespaces: ['TRACES'],
    bindings: options.bindings ?? {},
  };
  const miniflare = new Miniflare({
    workers: [
      { ...worker, name: 'edge-a', durableObjects: { RUNS: { className: 'RunCoordinator', useSQLite: true } } },
      {
        ...worker,
        name: 'edge-b',
        durableObjects: { RUNS: { className: 'RunCoordinator', scriptName: 'edge-a', useSQLite: true } },
      },
    ],
    ...(options.persist !== undefined
      ? { kvPersist: path.join(options.persist, 'kv'), durableObjectsPersist: path.join(options.persist, 'do') }
      : {}),
  });
  await miniflare.ready;
  return miniflare;
}

/** The second worker of an instance, shaped for `call` (which only uses `dispatchFetch`). */
export async function secondWorker(miniflare: Miniflare): Promise<Miniflare> {
  const worker = (await miniflare.getWorker('edge-b')) as unknown as {
    fetch(url: string, init?: RequestInit): Promise<Response>;
  };
  return { dispatchFetch: (url: string, init?: RequestInit) => worker.fetch(url, init) } as unknown as Miniflare;
}

/** The events of an SSE text (comment-only blocks such as keep-alives left out). */
export function sseEvents(text: string): Array<{ event: string; data: any; id: string }> {
  return text
    .split('\n\n')
    .map((block) => block.split('\n'))
    .filter((lines) => lines.some((line) => line.startsWith('data: ')))
    .map((lines) => ({
      event: lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message',
      data: JSON.parse(
        lines
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n'),
      ),
      id: lines.find((line) => line.startsWith('id: '))?.slice(4) ?? '',
    }));
}

/** Reads an SSE response until it ends, or until `stopAfter` events arrived (then drops the connection). */
export async function readSse(
  response: { body: unknown },
  stopAfter = Infinity,
): Promise<{ text: string; dropped: boolean }> {
  // Node's and Miniflare's stream types differ; both read the same way.
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { text, dropped: false };
    text += decoder.decode(value, { stream: true });
    const complete = text.slice(0, text.lastIndexOf('\n\n') + 2);
    const events = complete.split('\n\n').filter((block) => block.split('\n').some((line) => line.startsWith('id: ')));
    if (events.length >= stopAfter) {
      await reader.cancel();
      return { text: complete, dropped: true };
    }
  }
}

/**
 * Follows a run's SSE events, dropping the connection after every `perConnection` events `drops`
 * times and reconnecting with `Last-Event-ID`; returns the seqs seen, in order, and the drops made.
 */
export async function followWithDrops(
  open: (headers: Record<string, string>) => Promise<{ status: number; body: unknown }>,
  drops: number,
  perConnection = 5,
): Promise<{ seen: number[]; reconnects: number }> {
  const seen: number[] = [];
  let reconnects = 0;
  for (;;) {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (seen.length > 0) headers['last-event-id'] = String(seen.at(-1));
    const response = await open(headers);
    if (response.status !== 200) throw new Error(`GET events answered ${response.status}`);
    const { text, dropped } = await readSse(response, reconnects < drops ? perConnection : Infinity);
    seen.push(...sseEvents(text).map((event) => Number(event.id)));
    if (!dropped) return { seen, reconnects };
    reconnects++;
  }
}

/** How many model requests since the `from`-th each node of the relay agent made (its name is in the prompt). */
export function relayRequests(mock: MockOpenAI, from: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const request of mock.requests.slice(from)) {
    const name = /relay node (\w+):/.exec(String(request.body?.messages?.[0]?.content ?? ''))?.[1];
    if (name !== undefined) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

/** Reads an SSE body to its end, handing each event's id and type to `onEvent` as it arrives. */
export async function forEachSseEvent(
  body: unknown,
  onEvent: (id: number, type: string | undefined) => void,
): Promise<void> {
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    text += decoder.decode(value, { stream: true });
    const end = text.lastIndexOf('\n\n');
    if (end < 0) continue;
    for (const block of text.slice(0, end).split('\n\n')) {
      const lines = block.split('\n');
      const id = lines.find((line) => line.startsWith('id: '));
      if (id !== undefined) onEvent(Number(id.slice(4)), lines.find((line) => line.startsWith('event: '))?.slice(7));
    }
    text = text.slice(end + 2);
  }
}

/** JSON calls to a served app: `post` (status, headers, body) and `waitForStatus` (polls GET /runs/:id). */
export function runClient(baseUrl: () => string) {
  const post = async (route: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl()}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, json: (await response.json()) as any };
  };
  const waitForStatus = async (runId: string, wanted: (status: string) => boolean): Promise<any> => {
    for (let attempt = 0; attempt < 400; attempt++) {
      const record = (await (await fetch(`${baseUrl()}/runs/${runId}`)).json()) as any;
      if (wanted(record.status)) return record;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`run ${runId} never reached the wanted status`);
  };
  return { post, waitForStatus };
}
