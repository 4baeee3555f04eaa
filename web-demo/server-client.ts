/**
 * A tea-edge server (`tea-edge serve`, or a deployed worker with a bearer token) as the studio's
 * back-end, over its HTTP API: list the agents (and one agent's spec, for the graph), start and
 * resume runs in the background (`Prefer: respond-async`), follow a run's events over SSE with
 * reconnection from the last seq seen (`Last-Event-ID`), cancel, and read the run history.
 * Browser `fetch` only (EventSource cannot send a bearer token), so it runs in Node tests too.
 */
import type { AgentEvent } from '../src/core/events.js';
import type { RunRecord } from '../src/core/trace-store.js';

/** One load problem of an agent file the server does not serve. */
export interface ServerLoadProblem {
  code: string;
  message: string;
  file?: string;
  line?: number;
  column?: number;
}

/** An agent of `GET /agents`: `invalid` ones (a file that does not load) carry their problems. */
export interface ServerAgent {
  name: string;
  description: string;
  /** Absent from servers older than the listing of invalid agents: read as ready. */
  status?: 'ready' | 'invalid';
  file?: string;
  errors?: ServerLoadProblem[];
}

export interface FollowOptions {
  /** The last seq the caller has (0: from the start). */
  after?: number;
  signal?: AbortSignal;
  /** Reconnections allowed in a row without a new event (default 8). */
  maxRetries?: number;
  /** Wait before reconnecting, doubled per failure up to 5 s (default 250 ms). */
  retryDelayMs?: number;
  /** Told before each reconnection (for the status line). */
  onReconnect?(attempt: number, lastSeq: number): void;
}

/** Why a server request failed: the HTTP status and the server's error code, when it sent one. */
export class ServerError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
  ) {
    super(message);
  }
}

export class ServerClient {
  readonly base: string;
  private readonly token: string | undefined;
  /** Fetch used for every request (a test may wrap it to drop connections). */
  private readonly fetcher: typeof fetch;

  constructor(base: string, token?: string, fetcher: typeof fetch = (...args) => fetch(...args)) {
    this.base = base.endsWith('/') ? base : `${base}/`;
    this.token = token === '' ? undefined : token;
    this.fetcher = fetcher;
  }

  /** The server's version, or undefined when nothing that answers like tea-edge is there. */
  async health(signal?: AbortSignal): Promise<string | undefined> {
    try {
      const response = await this.fetcher(this.url('health'), signal ? { signal } : {});
      if (!response.ok) return undefined;
      const body = (await response.json()) as { ok?: unknown; version?: unknown };
      return body.ok === true ? String(body.version ?? '') : undefined;
    } catch {
      return undefined;
    }
  }

  agents(): Promise<ServerAgent[]> {
    return this.json('agents');
  }

  /** One agent with its spec, and its file's text when the server sends it (GET /agents/:name). */
  agent(name: string): Promise<ServerAgent & { spec?: unknown; source?: string }> {
    return this.json(`agents/${encodeURIComponent(name)}`);
  }

  /** Starts a run in the background; resolves with its id. */
  async start(agent: string, input: Record<string, unknown>): Promise<string> {
    const body = await this.json<{ run_id: string }>(`agents/${encodeURIComponent(agent)}/runs`, {
      method: 'POST',
      body: { input },
      async: true,
    });
    return body.run_id;
  }

  /** Resumes an interrupted run in the background (approval for a tool, or a state update). */
  async resume(
    runId: string,
    update: { approval?: { approved: boolean }; state_update?: Record<string, unknown>; checkpoint_id?: string },
  ): Promise<void> {
    await this.json(`runs/${encodeURIComponent(runId)}/resume`, { method: 'POST', body: update, async: true });
  }

  /** A new run paused after `node` of run `parentId`, with `state` (resume it to run from there). */
  async fork(parentId: string, node: string, state: Record<string, unknown>): Promise<string> {
    return (
      await this.json<{ run_id: string }>(`runs/${encodeURIComponent(parentId)}/fork`, {
        method: 'POST',
        body: { node, state },
      })
    ).run_id;
  }

  async cancel(runId: string): Promise<void> {
    await this.json(`runs/${encodeURIComponent(runId)}/cancel`, { method: 'POST', body: {} });
  }

  async runs(limit = 100): Promise<RunRecord[]> {
    return (await this.json<{ runs: RunRecord[] }>(`runs?limit=${limit}`)).runs;
  }

  /** A run's stored events (NDJSON). */
  async events(runId: string): Promise<AgentEvent[]> {
    const response = await this.request(`runs/${encodeURIComponent(runId)}/events`, {
      headers: { accept: 'application/x-ndjson' },
    });
    const text = await response.text();
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as AgentEvent);
  }

  /**
   * Follows a run over SSE until its `done` event, handing each event once, in seq order. A
   * dropped connection is reopened with `Last-Event-ID: <last seq>`, so nothing is missed or
   * repeated; it gives up after `maxRetries` reconnections in a row that brought nothing.
   * Resolves with the last seq seen.
   */
  async follow(runId: string, onEvent: (event: AgentEvent) => void, options: FollowOptions = {}): Promise<number> {
    let last = options.after ?? 0;
    let failures = 0;
    const maxRetries = options.maxRetries ?? 8;
    for (;;) {
      let ended = false;
      const before = last;
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        if (last > 0) headers['last-event-id'] = String(last);
        const response = await this.request(`runs/${encodeURIComponent(runId)}/events`, {
          headers,
          ...(options.signal ? { signal: options.signal } : {}),
        });
        for await (const event of readSse(response)) {
          if (event.seq <= last) continue;
          last = event.seq;
          onEvent(event);
          if (event.type === 'done') ended = true;
        }
        if (ended) return last;
      } catch (error) {
        if (options.signal?.aborted) throw error;
        if (error instanceof ServerError && error.status < 500) throw error;
        if (ended) return last;
      }
      failures = last > before ? 1 : failures + 1;
      if (failures > maxRetries)
        throw new ServerError(
          `lost the event stream of run ${runId} after ${maxRetries} reconnections`,
          0,
          'STREAM_LOST',
        );
      options.onReconnect?.(failures, last);
      await delay(Math.min(5000, (options.retryDelayMs ?? 250) * 2 ** (failures - 1)), options.signal);
    }
  }

  private url(path: string): string {
    return new URL(path, this.base).href;
  }

  private async request(
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const response = await this.fetcher(this.url(path), { ...init, headers });
    if (!response.ok && response.status !== 202) {
      let code = `HTTP_${response.status}`;
      let message = `${response.status} ${response.statusText}`;
      try {
        const body = (await response.json()) as { error?: { code?: string; message?: string } };
        code = body.error?.code ?? code;
        message = body.error?.message ?? message;
      } catch {
        // Not the app's error shape: the status says it.
      }
      throw new ServerError(`${code}: ${message}`, response.status, code);
    }
    return response;
  }

  private async json<T>(path: string, options: { method?: string; body?: unknown; async?: boolean } = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.async) headers.prefer = 'respond-async';
    const init: { method?: string; headers: Record<string, string>; body?: string } = { headers };
    if (options.method) init.method = options.method;
    if (options.body !== undefined) init.body = JSON.stringify(options.body);
    return (await (await this.request(path, init)).json()) as T;
  }
}

/** The events of an SSE body (`data:` lines joined; comments and heartbeats skipped). */
async function* readSse(response: Response): AsyncGenerator<AgentEvent> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data !== '') yield JSON.parse(data) as AgentEvent;
    }
  }
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}
