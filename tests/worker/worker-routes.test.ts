/**
 * The worker bundle in plain Miniflare (workerd, KV): every route, errors from the one status
 * table, auth, body limits and CORS, as an HTTP client outside the repository would see them.
 */
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleTestWorker, call, startWorker } from './miniflare-harness.js';

let script: string;
let open: Miniflare;
let guarded: Miniflare;

beforeAll(async () => {
  script = await bundleTestWorker();
  open = await startWorker(script);
  guarded = await startWorker(script, {
    bindings: {
      API_TOKENS: 'secret-admin:admin,secret-viewer:viewer',
      MAX_BODY_BYTES: '300',
      CORS_ORIGINS: 'https://app.example',
    },
  });
});

afterAll(async () => {
  await open?.dispose();
  await guarded?.dispose();
});

describe('worker routes (Miniflare)', () => {
  it('GET /health answers ok and the version', async () => {
    const response = await call(open, 'GET', '/health');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ ok: true, version: expect.any(String) });
  });

  it('GET /agents lists the bundled agents with descriptions', async () => {
    const response = await call(open, 'GET', '/agents');
    expect(response.status).toBe(200);
    expect(response.json.map((agent: { name: string }) => agent.name)).toEqual([
      'approver',
      'asker',
      'counter',
      'counter-straight',
      'deadline',
      'fetcher',
      'greeter',
      'looper',
      'payout',
      'quick',
      'quoter',
      'relay',
      'secret-user',
    ]);
    expect(response.json[2].description).toContain('Counts in Lua');
  });

  it('POST /agents/:name/runs runs an agent; GET /runs/:id and /runs/:id/events read it back', async () => {
    const started = await call(open, 'POST', '/agents/counter-straight/runs', { input: { count: 1 } });
    expect(started.status).toBe(200);
    expect(started.json).toMatchObject({
      status: 'completed',
      stop_reason: 'completed',
      state: { count: 12, total: 24, reviewed: true },
    });
    const runId = started.json.run_id as string;

    const record = await call(open, 'GET', `/runs/${runId}`);
    expect(record.status).toBe(200);
    expect(record.json).toMatchObject({
      run_id: runId,
      agent: 'counter-straight',
      status: 'completed',
      stop_reason: 'completed',
    });

    const events = await call(open, 'GET', `/runs/${runId}/events`);
    expect(events.status).toBe(200);
    expect(events.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = events.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((event) => event.seq)).toEqual(lines.map((_, index) => index + 1));
    expect(lines[0].type).toBe('run_start');
    expect(lines.at(-1)).toMatchObject({ type: 'done', data: { status: 'completed' } });

    const listed = await call(open, 'GET', '/runs?agent=counter-straight');
    expect(listed.json.runs.map((run: { run_id: string }) => run.run_id)).toContain(runId);
  });

  it('answers request errors as {error: {code, message}} with the table status', async () => {
    const cases: Array<[string, string, unknown, number, string]> = [
      ['POST', '/agents/nobody/runs', {}, 404, 'NOT_FOUND'],
      ['POST', '/agents/counter/runs', '{not json', 400, 'INVALID_PARAMS'],
      ['POST', '/agents/counter/runs', { input: [1, 2] }, 400, 'INPUT_INVALID'],
      ['GET', '/runs/no-such-run', undefined, 404, 'NOT_FOUND'],
      ['GET', '/runs/no-such-run/events', undefined, 404, 'NOT_FOUND'],
      ['POST', '/runs/no-such-run/resume', {}, 404, 'NOT_FOUND'],
      ['POST', '/runs/x/resume', { approval: 'yes' }, 400, 'INVALID_PARAMS'],
      ['GET', '/no/such/route', undefined, 404, 'NOT_FOUND'],
    ];
    for (const [method, route, body, status, code] of cases) {
      const response = await call(open, method, route, body);
      expect({ route, status: response.status, code: response.json?.error?.code }).toEqual({ route, status, code });
      expect(typeof response.json.error.message).toBe('string');
    }
  });

  it('resuming a finished run is a 409 CONFLICT', async () => {
    const finished = await call(open, 'POST', '/agents/counter-straight/runs', { input: {} });
    const response = await call(open, 'POST', `/runs/${finished.json.run_id}/resume`, {});
    expect(response.status).toBe(409);
    expect(response.json.error.code).toBe('CONFLICT');
  });

  it('GET /runs/:id/review answers the reviewer report of a stored run', async () => {
    const finished = await call(open, 'POST', '/agents/counter-straight/runs', { input: {} });
    const response = await call(open, 'GET', `/runs/${finished.json.run_id}/review`);
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({
      run_id: finished.json.run_id,
      agent: 'counter-straight',
      status: 'completed',
      success: true,
    });
    expect(response.json.tasks.map((task: { task_id?: string; node?: string }) => task)).toHaveLength(3);
    expect((await call(open, 'GET', '/runs/no-such-run/review')).json.error.code).toBe('NOT_FOUND');
  });
});

describe('worker auth, limits and CORS (Miniflare)', () => {
  it('needs a bearer token on every route but /health', async () => {
    expect((await call(guarded, 'GET', '/health')).status).toBe(200);
    for (const [method, route] of [
      ['GET', '/agents'],
      ['POST', '/agents/counter/runs'],
      ['GET', '/runs/x'],
      ['GET', '/runs/x/events'],
      ['POST', '/runs/x/resume'],
      ['GET', '/runs/x/review'],
    ] as const) {
      const missing = await call(guarded, method, route, method === 'POST' ? {} : undefined);
      expect({ route, status: missing.status, code: missing.json?.error?.code }).toEqual({
        route,
        status: 401,
        code: 'UNAUTHORIZED',
      });
    }
    const wrong = await call(guarded, 'GET', '/agents', undefined, { authorization: 'Bearer not-a-token' });
    expect(wrong.status).toBe(401);
    const right = await call(guarded, 'GET', '/agents', undefined, { authorization: 'Bearer secret-viewer' });
    expect(right.status).toBe(200);
    const run = await call(
      guarded,
      'POST',
      '/agents/counter-straight/runs',
      { input: {} },
      { authorization: 'Bearer secret-admin' },
    );
    expect(run.json.status).toBe('completed');
  });

  it('refuses a body over the limit with 413 INPUT_TOO_LARGE, by content-length and by counted bytes', async () => {
    const auth = { authorization: 'Bearer secret-admin' };
    const big = JSON.stringify({ input: { text: 'x'.repeat(1000) } });
    const declared = await call(guarded, 'POST', '/agents/counter/runs', big, auth);
    expect(declared.status).toBe(413);
    expect(declared.json.error.code).toBe('INPUT_TOO_LARGE');

    const bytes = new TextEncoder().encode(big);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 100)
          controller.enqueue(bytes.slice(offset, offset + 100));
        controller.close();
      },
    });
    const streamed = await guarded.dispatchFetch('http://worker.test/agents/counter/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: body as never,
      duplex: 'half',
    } as never);
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as { error: { code: string } }).error.code).toBe('INPUT_TOO_LARGE');

    const small = await call(guarded, 'POST', '/agents/counter-straight/runs', { input: { count: 2 } }, auth);
    expect(small.status).toBe(200);
  });

  it('answers CORS preflights for configured origins only', async () => {
    const preflight = await guarded.dispatchFetch('http://worker.test/agents', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect((preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase()).toContain('authorization');
    const other = await guarded.dispatchFetch('http://worker.test/health', {
      headers: { origin: 'https://evil.example' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const none = await open.dispatchFetch('http://worker.test/health', { headers: { origin: 'https://app.example' } });
    expect(none.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('worker retention (Miniflare cron trigger)', () => {
  it('applies MAX_RUNS on the scheduled event', async () => {
    const retained = await startWorker(script, { bindings: { MAX_RUNS: '2' } });
    try {
      const ids: string[] = [];
      for (let index = 0; index < 4; index++)
        ids.push((await call(retained, 'POST', '/agents/counter-straight/runs', { input: {} })).json.run_id);
      expect((await call(retained, 'GET', '/runs')).json.runs).toHaveLength(4);
      const worker = (await retained.getWorker()) as unknown as {
        scheduled(options: { cron: string }): Promise<unknown>;
      };
      await worker.scheduled({ cron: '17 3 * * *' });
      const left = (await call(retained, 'GET', '/runs')).json.runs.map((run: { run_id: string }) => run.run_id);
      expect(left).toHaveLength(2);
      expect((await call(retained, 'GET', `/runs/${ids[0]}`)).status).toBe(404);
    } finally {
      await retained.dispose();
    }
  });
});
