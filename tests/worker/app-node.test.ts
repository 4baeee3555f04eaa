/**
 * The Hono app in Node (app.request), for what needs hooks the bundle cannot take: roles reaching
 * actions, a Workers KV binding that fails under a real run, a custom reviewer, the status table
 * and the host variables parser.
 */
import { describe, expect, it } from 'vitest';
import { createKvStores, type KVNamespaceLike } from '../../adapters/workers-kv/index.js';
import type { ActionDefinition } from '../../src/core/action.js';
import { createActionRegistry } from '../../src/builtins.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';
import { createApp } from '../../worker/app.js';
import { ERROR_STATUS, statusOf } from '../../worker/error-status.js';
import { optionsFromVariables, parseTokens } from '../../worker/host-config.js';

const whoami: ActionDefinition = {
  name: 'test.whoami',
  description: 'Returns the caller role the host passed to the run.',
  async run(_params, context) {
    return { role: context.role ?? null };
  },
};

const roleAgent = loadAgent('name: whoami\nnodes:\n  - name: ask\n    uses: test.whoami\n', {
  file: 'whoami.yaml',
  registry: createActionRegistry([whoami]),
});
const luaAgent = loadAgent(
  'name: plain\ndescription: two Lua nodes\nnodes:\n  - name: a\n    run: return { x = 1 }\n  - name: b\n    run: return { y = state.x + 1 }\n',
  { file: 'plain.yaml' },
);

async function json(response: Response) {
  return { status: response.status, body: (await response.json()) as any };
}

function post(body: unknown, headers: Record<string, string> = {}) {
  return { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** A KV namespace in memory whose operations can be made to fail. */
function memoryKv() {
  const data = new Map<string, string>();
  const faults = { put: undefined as undefined | ((key: string) => boolean), get: false };
  const namespace: KVNamespaceLike = {
    async get(key) {
      if (faults.get) throw new Error('KV GET failed: 503 Service Unavailable');
      return data.get(key) ?? null;
    },
    async put(key, value) {
      if (faults.put?.(key) === true) throw new Error('KV PUT failed: 429 Too Many Requests');
      data.set(key, value);
    },
    async delete(key) {
      data.delete(key);
    },
    async list(options = {}) {
      const names = [...data.keys()].filter((name) => name.startsWith(options.prefix ?? '')).sort();
      return { keys: names.map((name) => ({ name })), list_complete: true };
    },
  };
  return { namespace, faults };
}

describe('app: roles', () => {
  it('hands the role of the bearer token to the run', async () => {
    const app = createApp({
      agents: { whoami: roleAgent },
      ...createMemoryStores(),
      auth: { tokens: { 'token-a': 'admin', 'token-b': 'viewer' } },
    });
    const viewer = await json(await app.request('/agents/whoami/runs', post({}, { authorization: 'Bearer token-b' })));
    expect(viewer.body).toMatchObject({ status: 'completed', state: { role: 'viewer' } });
    const admin = await json(await app.request('/agents/whoami/runs', post({}, { authorization: 'bearer token-a' })));
    expect(admin.body.state.role).toBe('admin');
    expect((await app.request('/agents/whoami/runs', post({}))).status).toBe(401);
    const open = createApp({ agents: { whoami: roleAgent }, ...createMemoryStores() });
    expect((await json(await open.request('/agents/whoami/runs', post({})))).body.state.role).toBeNull();
  });
});

describe('app over a failing Workers KV binding', () => {
  it('a run whose trace cannot be written is reported failed with STORAGE_ERROR, never completed', async () => {
    const { namespace, faults } = memoryKv();
    const app = createApp({
      agents: { plain: luaAgent },
      ...createKvStores(namespace, { retryDelayMs: 1, retries: 1 }),
    });
    faults.put = (key) => key.includes(':ev:');
    const failed = await json(await app.request('/agents/plain/runs', post({ input: {} })));
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ status: 'failed', error: { code: 'STORAGE_ERROR' } });
    const reader = createKvStores(namespace).traceStore;
    expect((await reader.getRun(failed.body.run_id))?.status).not.toBe('completed');

    faults.put = undefined;
    const ok = await json(await app.request('/agents/plain/runs', post({ input: {} })));
    expect(ok.body).toMatchObject({ status: 'completed', state: { x: 1, y: 2 } });
    expect((await reader.getRun(ok.body.run_id))?.status).toBe('completed');
    expect(await reader.readEvents(ok.body.run_id)).not.toHaveLength(0);

    faults.get = true;
    const unreadable = await json(await app.request(`/runs/${ok.body.run_id}`));
    expect(unreadable).toMatchObject({ status: 503, body: { error: { code: 'STORAGE_ERROR' } } });
    const resume = await json(await app.request(`/runs/${ok.body.run_id}/resume`, post({})));
    expect(resume).toMatchObject({ status: 503, body: { error: { code: 'STORAGE_ERROR' } } });
  });
});

describe('app: reviewer and tables', () => {
  it('uses a custom reviewer, or answers 501 NOT_IMPLEMENTED when reviews are off', async () => {
    const stores = createMemoryStores();
    const app = createApp({
      agents: { plain: luaAgent },
      ...stores,
      review: async (runId, context) => ({ reviewed: runId, agent: context.agent?.name, learn: context.learn }),
    });
    const run = await json(await app.request('/agents/plain/runs', post({})));
    const review = await json(await app.request(`/runs/${run.body.run_id}/review?learn=true`));
    expect(review.body).toEqual({ reviewed: run.body.run_id, agent: 'plain', learn: true });
    const off = createApp({ agents: { plain: luaAgent }, ...stores, review: false });
    expect(await json(await off.request(`/runs/${run.body.run_id}/review`))).toMatchObject({
      status: 501,
      body: { error: { code: 'NOT_IMPLEMENTED' } },
    });
  });

  it('maps codes to statuses from one table', () => {
    expect(statusOf('NOT_FOUND')).toBe(404);
    expect(statusOf('LLM_HTTP_503')).toBe(502);
    expect(statusOf('SOMETHING_NEW')).toBe(500);
    for (const [code, status] of Object.entries(ERROR_STATUS)) expect(statusOf(code)).toBe(status);
  });

  it('reads host variables: tokens, CORS, model overrides, limits; the model key is never a template secret', () => {
    expect(parseTokens('a:admin, b:viewer,c')).toEqual({ a: 'admin', b: 'viewer', c: 'user' });
    expect(parseTokens('{"x": "ops"}')).toEqual({ x: 'ops' });
    expect(parseTokens('')).toBeUndefined();
    expect(() => parseTokens('{"x": 1}')).toThrow(expect.objectContaining({ code: 'HOST_CONFIG' }));
    expect(
      optionsFromVariables({
        CORS_ORIGINS: 'https://a, https://b',
        LLM_BASE_URL: 'http://m/v1',
        LLM_API_KEY: 'k-123',
        MAX_BODY_BYTES: '10',
      }),
    ).toEqual({
      cors: { origins: ['https://a', 'https://b'] },
      llm: { overrides: { api_base: 'http://m/v1', api_key: 'k-123' } },
      limits: { maxBodyBytes: 10 },
    });
  });

  it('a host variable it cannot read is HOST_CONFIG naming it, never a silent default', () => {
    const refused: Array<[Record<string, string>, string, string]> = [
      [{ MAX_BODY_BYTES: '1mb' }, 'MAX_BODY_BYTES', 'must be an integer ≥ 1, got "1mb"'],
      [{ MAX_BODY_BYTES: '0' }, 'MAX_BODY_BYTES', 'must be an integer ≥ 1'],
      [{ SSE_HEARTBEAT_MS: '-5' }, 'SSE_HEARTBEAT_MS', 'must be an integer ≥ 0'],
      [{ AGENT_SECRETS: 'NOT_SET' }, 'AGENT_SECRETS', 'NOT_SET is not set'],
      [{ AGENT_SECRETS: 'LLM_API_KEY', LLM_API_KEY: 'k' }, 'AGENT_SECRETS', "LLM_API_KEY holds the host's model key"],
    ];
    for (const [variables, field, words] of refused) {
      let thrown: unknown;
      try {
        optionsFromVariables(variables);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, field).toMatchObject({ code: 'HOST_CONFIG', location: { field } });
      expect((thrown as Error).message).toContain(words);
    }
    expect(optionsFromVariables({ AGENT_SECRETS: ' A , B ', A: 'one', B: 'two', C: 'three' } as never)).toEqual({
      secrets: { A: 'one', B: 'two' },
    });
    expect(statusOf('HOST_CONFIG')).toBe(500);
  });
});
