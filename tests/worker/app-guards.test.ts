/**
 * The app refuses what a web page could do to it (issue 12 point 9) and answers outcomes honestly
 * (issue 10 point 2), on Node through app.request: bodies that are not `application/json`,
 * foreign origins, cross-site requests without an origin, a Host outside the allowed list, unknown
 * routes and methods in the error shape, and a failed run never answered as a success.
 */
import { describe, expect, it } from 'vitest';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';
import { createApp } from '../../worker/app.js';
import { statusOf } from '../../worker/error-status.js';
import { lazyAgentSource } from '../../worker/prebuilt-agent-source.js';
import { jsonOrUndefined } from './miniflare-harness.js';

const counter = loadAgent(
  'name: counter\nnodes:\n  - name: start\n    run: return { count = (state.count or 0) + 1 }\n  - name: review\n    interrupt: before\n    run: return { reviewed = true }\n',
  { file: 'counter.yaml' },
);
const strict = loadAgent(
  'name: strict\ninput_schema:\n  type: object\n  required: [n]\n  properties:\n    n: { type: integer }\nnodes:\n  - name: boom\n    run: |\n      if state.n == 13 then error("unlucky " .. state.n) end\n      return { n = state.n }\n',
  { file: 'strict.yaml' },
);
const looping = loadAgent(
  'name: looping\nsettings:\n  limits:\n    max_steps: 3\nnodes:\n  - name: spin\n    run: return {}\n    goto: spin\n',
  { file: 'looping.yaml' },
);

function appWith(options: Partial<Parameters<typeof createApp>[0]> = {}) {
  const stores = createMemoryStores();
  return { stores, app: createApp({ agents: { counter, strict, looping }, ...stores, ...options }) };
}

async function send(app: ReturnType<typeof createApp>, path: string, init: RequestInit = {}) {
  const response = await app.request(path, init);
  return { status: response.status, headers: response.headers, json: jsonOrUndefined(await response.text()) };
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('POST bodies must be application/json (no simple cross-site POST)', () => {
  it('refuses forms, text/plain, multipart, no content type and look-alikes with 415, before anything runs', async () => {
    const { app, stores } = appWith();
    const form = new FormData();
    form.set('input', '{}');
    const bodies: Array<[string, RequestInit]> = [
      ['text/plain', { headers: { 'content-type': 'text/plain' }, body: '{"input":{}}' }],
      [
        'text/plain with json parameter',
        { headers: { 'content-type': 'text/plain; application/json' }, body: '{"input":{}}' },
      ],
      ['form', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'input=%7B%7D' }],
      ['multipart', { body: form }],
      ['no content type, no body', {}],
      ['no content type, a body', { body: new Blob(['{"input":{}}']) }],
      ['json look-alike', { headers: { 'content-type': 'application/json-patch+json' }, body: '{}' }],
      ['json suffix', { headers: { 'content-type': 'application/jsonx' }, body: '{}' }],
    ];
    for (const [label, init] of bodies) {
      const started = await send(app, '/agents/counter/runs', { method: 'POST', ...init });
      expect({ label, status: started.status, code: started.json?.error?.code }).toEqual({
        label,
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      });
    }
    expect((await stores.traceStore.listRuns({})).runs).toHaveLength(0);
  });

  it('a paused run cannot be resumed by a form or text/plain POST, and still resumes with JSON', async () => {
    const { app } = appWith();
    const paused = await send(app, '/agents/counter/runs', {
      method: 'POST',
      headers: JSON_TYPE,
      body: '{"input":{}}',
    });
    expect(paused.json.status).toBe('interrupted');
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'text/plain;charset=UTF-8']) {
      const resumed = await send(app, `/runs/${paused.json.run_id}/resume`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: '{}',
      });
      expect(resumed.status).toBe(415);
    }
    const resumed = await send(app, `/runs/${paused.json.run_id}/resume`, {
      method: 'POST',
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
      body: '',
    });
    expect(resumed.json).toMatchObject({ status: 'completed', state: { reviewed: true } });
  });
});

describe('a body key the route does not know is refused, naming the nearest one', () => {
  it('start, resume and fork: 400 INVALID_PARAMS with the field, nothing runs, the paused run still resumes', async () => {
    const { app, stores } = appWith();
    const typo = await send(app, '/agents/counter/runs', {
      method: 'POST',
      headers: JSON_TYPE,
      body: '{"inputs":{"count":4}}',
    });
    expect(typo.status).toBe(400);
    expect(typo.json.error).toMatchObject({ code: 'INVALID_PARAMS', field: 'inputs' });
    expect(typo.json.error.message).toContain('did you mean `input`?');
    expect((await stores.traceStore.listRuns({})).runs).toHaveLength(0);

    const paused = await send(app, '/agents/counter/runs', {
      method: 'POST',
      headers: JSON_TYPE,
      body: '{"input":{}}',
    });
    const runId = paused.json.run_id as string;
    const bodies: Array<[string, string, string]> = [
      [`/runs/${runId}/resume`, '{"state_updates":{"count":9}}', 'did you mean `state_update`?'],
      [`/runs/${runId}/resume`, '{"checkpointid":"x"}', 'did you mean `checkpoint_id`?'],
      [`/runs/${runId}/resume`, '{"checkpoint_id":7}', 'checkpoint_id must be a non-empty string'],
      [`/runs/${runId}/resume`, '{"approval":"yes"}', 'approval must be'],
      [`/runs/${runId}/fork`, '{"node":"start","state":{},"extra":1}', 'known: node, state'],
    ];
    for (const [path, body, words] of bodies) {
      const refused = await send(app, path, { method: 'POST', headers: JSON_TYPE, body });
      expect({ path, body, status: refused.status, code: refused.json.error.code }).toEqual({
        path,
        body,
        status: 400,
        code: 'INVALID_PARAMS',
      });
      expect(refused.json.error.message).toContain(words);
    }
    const resumed = await send(app, `/runs/${runId}/resume`, {
      method: 'POST',
      headers: JSON_TYPE,
      body: JSON.stringify({ checkpoint_id: paused.json.interrupt.checkpoint_id }),
    });
    expect(resumed.json).toMatchObject({ status: 'completed', state: { count: 1, reviewed: true } });
  });
});

describe('a query parameter the route does not know, or a malformed one, is refused', () => {
  it('400 INVALID_PARAMS naming the nearest known parameter; known ones still work', async () => {
    const { app } = appWith();
    const paused = await send(app, '/agents/counter/runs', {
      method: 'POST',
      headers: JSON_TYPE,
      body: '{"input":{}}',
    });
    const runId = paused.json.run_id as string;
    const refused: Array<[string, RequestInit, string, string]> = [
      ['/runs?agnet=counter', {}, 'agnet', 'did you mean `agent`?'],
      ['/runs?limit=abc', {}, 'limit', 'limit must be an integer from 1 to 1000'],
      ['/runs?limit=5000', {}, 'limit', 'limit must be an integer from 1 to 1000'],
      ['/health?verbose=1', {}, 'verbose', 'this route takes none'],
      ['/health?constructor=1', {}, 'constructor', 'this route takes none'],
      [`/runs/${runId}/events?afterr=2`, {}, 'afterr', 'did you mean `after`?'],
      [`/runs/${runId}/events?after=abc`, {}, 'after', 'after must be an event seq'],
      [`/runs/${runId}/events?after=-1`, {}, 'after', 'after must be an event seq'],
      [
        `/runs/${runId}/events`,
        { headers: { 'last-event-id': 'x1' } },
        'Last-Event-ID',
        'Last-Event-ID must be an event seq',
      ],
      [
        '/agents/counter/runs?background=1',
        { method: 'POST', headers: JSON_TYPE, body: '{}' },
        'background',
        'Prefer: respond-async',
      ],
      [
        '/agents/counter/runs?cancel_on_disconect=1',
        { method: 'POST', headers: JSON_TYPE, body: '{}' },
        'cancel_on_disconect',
        'did you mean `cancel_on_disconnect`?',
      ],
    ];
    for (const [path, init, field, words] of refused) {
      const answer = await send(app, path, init);
      expect({ path, status: answer.status, code: answer.json.error.code, field: answer.json.error.field }).toEqual({
        path,
        status: 400,
        code: 'INVALID_PARAMS',
        field,
      });
      expect(answer.json.error.message).toContain(words);
    }
    expect((await send(app, '/runs?agent=counter&limit=1')).json.runs).toHaveLength(1);
    const events = await app.request(`/runs/${runId}/events?after=2`);
    expect(
      (await events.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).seq)[0],
    ).toBe(3);
  });
});

describe('Origin allow-list', () => {
  it('refuses foreign origins on every route, accepts its own origin and clients without Origin', async () => {
    const { app } = appWith();
    for (const origin of [
      'https://evil.example',
      'null',
      'http://localhost:9999',
      'http://localhost.evil.example',
      'http://localhost@evil.example',
      'HTTP://LOCALHOST',
    ]) {
      const post = await send(app, 'http://localhost/agents/counter/runs', {
        method: 'POST',
        headers: { ...JSON_TYPE, origin },
        body: '{}',
      });
      expect({ origin, status: post.status, code: post.json?.error?.code }).toEqual({
        origin,
        status: 403,
        code: 'FORBIDDEN',
      });
      const read = await send(app, 'http://localhost/runs', { headers: { origin } });
      expect(read.status).toBe(403);
    }
    expect(
      (
        await send(app, 'http://localhost/agents/counter/runs', {
          method: 'POST',
          headers: { ...JSON_TYPE, origin: 'http://localhost' },
          body: '{}',
        })
      ).status,
    ).toBe(200);
    expect(
      (await send(app, 'http://localhost/agents/counter/runs', { method: 'POST', headers: JSON_TYPE, body: '{}' }))
        .status,
    ).toBe(200);
  });

  it('refuses a request the browser marks cross-site when it carries no Origin (an <img>, a link)', async () => {
    const { app } = appWith();
    for (const site of ['cross-site', 'same-site']) {
      expect((await send(app, '/runs', { headers: { 'sec-fetch-site': site } })).status).toBe(403);
    }
    expect((await send(app, '/runs', { headers: { 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
    expect((await send(app, '/runs', { headers: { 'sec-fetch-site': 'none' } })).status).toBe(200);
  });

  it('accepts the configured origins, and any origin only when configured with *', async () => {
    const { app } = appWith({ cors: { origins: ['https://app.example'] } });
    const allowed = await send(app, '/agents/counter/runs', {
      method: 'POST',
      headers: { ...JSON_TYPE, origin: 'https://app.example' },
      body: '{}',
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const preflight = await app.request('/agents/counter/runs', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    const open = appWith({ cors: { origins: '*' } }).app;
    expect(
      (
        await send(open, '/agents/counter/runs', {
          method: 'POST',
          headers: { ...JSON_TYPE, origin: 'https://anyone.example' },
          body: '{}',
        })
      ).status,
    ).toBe(200);
  });
});

describe('Host allow-list (what a loopback server sets)', () => {
  it('refuses any Host outside the list, also when the URL names another host', async () => {
    const { app } = appWith({ allowedHosts: () => ['localhost:8787', '127.0.0.1:8787', '[::1]:8787'] });
    for (const host of [
      'evil.example:8787',
      'localhost',
      'localhost:8788',
      'localhost.evil.example:8787',
      '127.0.0.1.nip.io:8787',
      '127.0.0.2:8787',
      '[::2]:8787',
      '',
    ]) {
      const response = await send(app, 'http://localhost:8787/health', { headers: { host } });
      expect({ host, status: response.status, code: response.json?.error?.code }).toEqual({
        host,
        status: 403,
        code: 'FORBIDDEN',
      });
    }
    expect((await send(app, 'http://evil.example:8787/health')).status).toBe(403);
    for (const host of ['localhost:8787', 'LOCALHOST:8787', '127.0.0.1:8787', '[::1]:8787']) {
      expect((await send(app, 'http://localhost:8787/health', { headers: { host } })).status).toBe(200);
    }
  });
});

describe('unknown routes and methods answer the error shape', () => {
  it('404 for unknown routes, 405 with Allow for known routes asked with another method', async () => {
    const { app } = appWith();
    for (const [method, path] of [
      ['GET', '/nope'],
      ['POST', '/agents/counter'],
      ['GET', '/agents/counter/runs/x/y'],
      ['PUT', '/nothing/here'],
    ]) {
      const response = await send(app, path!, { method, headers: JSON_TYPE });
      expect({
        path,
        status: response.status,
        code: response.json?.error?.code,
        message: typeof response.json?.error?.message,
      }).toEqual({ path, status: 404, code: 'NOT_FOUND', message: 'string' });
    }
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/runs/abc', 'GET, HEAD'],
      ['PUT', '/agents/counter/runs', 'POST'],
      ['GET', '/agents/counter/runs', 'POST'],
      ['PATCH', '/health', 'GET, HEAD'],
      ['POST', '/agents', 'GET, HEAD'],
      ['GET', '/runs/abc/resume', 'POST'],
      ['OPTIONS', '/runs', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await send(app, path, {
        method,
        headers: JSON_TYPE,
        ...(method === 'PUT' || method === 'PATCH' || method === 'POST' ? { body: '{}' } : {}),
      });
      expect({
        method,
        path,
        status: response.status,
        code: response.json?.error?.code,
        allow: response.headers.get('allow'),
      }).toEqual({ method, path, status: 405, code: 'METHOD_NOT_ALLOWED', allow });
    }
    expect((await app.request('/health', { method: 'HEAD' })).status).toBe(200);
  });
});

describe('a failed run is never answered as a success (issue 10 point 2)', () => {
  it('JSON: the status of its error, status failed, the error shape; the record says failed', async () => {
    const { app, stores } = appWith();
    const cases: Array<[string, unknown, number, string]> = [
      ['strict', { n: 'not a number' }, 400, 'INPUT_INVALID'],
      ['strict', { n: 13 }, 500, 'LUA_ERROR'],
      ['looping', {}, 422, 'BUDGET_EXCEEDED'],
    ];
    for (const [agent, input, status, code] of cases) {
      const response = await send(app, `/agents/${agent}/runs`, {
        method: 'POST',
        headers: JSON_TYPE,
        body: JSON.stringify({ input }),
      });
      expect({ agent, status: response.status, body: response.json }).toMatchObject({
        agent,
        status,
        body: { status: 'failed', error: { code, message: expect.any(String) } },
      });
      expect((await stores.traceStore.getRun(response.json.run_id))?.status).toBe('failed');
    }
    const ok = await send(app, '/agents/strict/runs', {
      method: 'POST',
      headers: JSON_TYPE,
      body: '{"input":{"n":1}}',
    });
    expect(ok).toMatchObject({ status: 200, json: { status: 'completed' } });
  });

  it('SSE: the done event says failed with the error', async () => {
    const { app } = appWith();
    const response = await app.request('/agents/strict/runs', {
      method: 'POST',
      headers: { ...JSON_TYPE, accept: 'text/event-stream' },
      body: '{"input":{"n":13}}',
    });
    const text = await response.text();
    const done = text.split('\n\n').find((block) => block.startsWith('event: done'))!;
    const event = JSON.parse(
      done
        .split('\n')
        .find((line) => line.startsWith('data: '))!
        .slice(6),
    );
    expect(event.data).toMatchObject({ status: 'failed', stop_reason: 'error', error: { code: 'LUA_ERROR' } });
  });
});

describe('agents that fail to load (issue 10 point 4)', () => {
  it('every request that needs them answers the first problem (status from the table) with every problem of every file in details.errors', async () => {
    const sources = [
      ['good.yaml', 'name: good\nnodes:\n  - name: a\n    run: return {}\n'],
      ['bad.yaml', 'name: bad\nnodes:\n  - name: a\n    uses: no.such.action\n'],
      ['worse.yaml', 'name: worse\nnodes: [\n'],
    ];
    const agents = lazyAgentSource(() =>
      sources.map(([file, source]) => ({ file: file!, compile: () => loadAgent(source!, { file }) })),
    );
    const app = createApp({ agents, ...createMemoryStores() });
    for (const [method, path] of [
      ['GET', '/agents'],
      ['POST', '/agents/good/runs'],
    ]) {
      const response = await send(app, path!, {
        method,
        headers: JSON_TYPE,
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      expect(response.status).toBe(statusOf(response.json.error.code));
      expect(response.status).toBeGreaterThanOrEqual(422);
      expect(response.json.error).toMatchObject({
        code: expect.any(String),
        file: 'bad.yaml',
        line: expect.any(Number),
      });
      const files = response.json.error.details.errors.map((problem: { file: string }) => problem.file);
      expect([...new Set(files)]).toEqual(['bad.yaml', 'worse.yaml']);
    }
  });
});
