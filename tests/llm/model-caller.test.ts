import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createModelCaller, type ModelCallerEnvironment } from '../../src/llm/model-caller.js';
import { appendMessages, replaceMessage, trackMessageHistory } from '../../src/llm/resolve-llm-call.js';
import { createProvider } from '../../src/llm/create-provider.js';
import { createScriptedModel, type ScriptedModel } from '../../src/llm/scripted-model.js';
import type { ChatMessage, LlmConnection } from '../../src/core/model-provider.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

const CANARY = 'sk-canary-ZYXW-987654321';
let server: MockOpenAI;

beforeAll(async () => {
  server = await startMockOpenAI();
});
afterAll(() => server.close());
beforeEach(() => {
  server.setFault();
  server.setReplies(['Hello!']);
  server.requests.length = 0;
});

function environment(settingsLlm: Record<string, unknown>, extra: Partial<ModelCallerEnvironment> = {}) {
  const events: { type: string; data: Record<string, unknown> }[] = [];
  const budget = { before: 0, tokens: 0 };
  const env: ModelCallerEnvironment = {
    settingsLlm,
    signal: new AbortController().signal,
    emit: (type, data) => events.push({ type, data }),
    budget: {
      beforeLlmCall: () => void budget.before++,
      afterLlmCall: (usage) => void (budget.tokens += usage.total_tokens),
    },
    capturePayloads: false,
    providerFactory: (connection) =>
      createProvider(connection, { retryTiming: { baseDelayMs: 5, maxDelayMs: 10, retryAfterCapMs: 10 } }),
    ...extra,
  };
  return { env, events, budget };
}

async function caught(promise: Promise<unknown>): Promise<{ code: string; message: string; details: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string; details: unknown };
  }
  throw new Error('expected a failure');
}

describe('createModelCaller', () => {
  it('a tracked history is sent as its owner changed it, a change made around the helpers is still seen, and a running call keeps what it was lent', async () => {
    const reply = {
      content: 'ok',
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      model: 'm',
      finish_reason: 'stop',
    };
    const seen: { messages: readonly ChatMessage[]; copy: ChatMessage[] }[] = [];
    let release: (() => void) | undefined;
    const borrower = {
      borrowsRequest: true,
      async generate(request: { messages: ChatMessage[] }) {
        seen.push({ messages: request.messages, copy: structuredClone(request.messages) });
        if (seen.length === 4) await new Promise<void>((resolve) => (release = resolve));
        return reply;
      },
      stream: async function* () {
        yield { type: 'done' as const, response: reply };
      },
    };
    const caller = createModelCaller(environment({}, { providerFactory: () => borrower }).env);
    const history: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'goal' },
    ];
    trackMessageHistory(history);
    await caller.call({ messages: history });
    appendMessages(history, { role: 'assistant', content: 'a1' }, { role: 'user', content: 'o1' });
    replaceMessage(history, 0, { role: 'system', content: 'sys 2' });
    await caller.call({ messages: history });
    expect(seen[1]!.copy).toEqual(history);
    // A plain push (around the helpers) changes the length: the list is compared in full.
    history.push({ role: 'assistant', content: 'pushed' });
    await caller.call({ messages: history });
    expect(seen[2]!.copy).toEqual(history);
    // Appending while a call still runs: the running call's messages stay as they were lent.
    const running = caller.call({ messages: history });
    await new Promise((resolve) => setTimeout(resolve, 0));
    appendMessages(history, { role: 'user', content: 'during' });
    expect(seen[3]!.messages).toHaveLength(5);
    release!();
    await running;
    await caller.call({ messages: history });
    expect(seen[4]!.copy).toEqual(history);
    // A bad message is refused by the call that sends it, with the place named.
    appendMessages(history, { role: 'robot', content: 'x' } as unknown as ChatMessage);
    await expect(caller.call({ messages: history })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
      field: 'messages[6].role',
    });
  });

  it('lends a growing history to a provider that borrows requests, and copies it for any other', async () => {
    const reply = {
      content: 'ok',
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      model: 'm',
      finish_reason: 'stop',
    };
    const seen: { messages: unknown[]; length: number }[] = [];
    let release: (() => void) | undefined;
    const borrower = {
      borrowsRequest: true,
      async generate(request: { messages: unknown[] }) {
        seen.push({ messages: request.messages, length: request.messages.length });
        // The second call waits, so a third call of the same history overlaps it.
        if (seen.length === 2) await new Promise<void>((resolve) => (release = resolve));
        return reply;
      },
      stream: async function* () {
        yield { type: 'done' as const, response: reply };
      },
    };
    const history: ChatMessage[] = [{ role: 'user', content: 'one' }];
    const lending = createModelCaller(environment({}, { providerFactory: () => borrower }).env);
    await lending.call({ messages: history });
    history.push({ role: 'assistant', content: 'two' });
    const second = lending.call({ messages: history });
    await new Promise((resolve) => setTimeout(resolve, 0));
    // While the second call still runs, its list is lent: a concurrent call reads the history afresh.
    history.push({ role: 'user', content: 'three' });
    await lending.call({ messages: history });
    expect(seen[1]!.messages).toHaveLength(2);
    release!();
    await second;
    history.push({ role: 'assistant', content: 'four' });
    await lending.call({ messages: history });
    // Calls one, two and four got the one list kept for the history (grown in place); three its own.
    expect(seen[1]!.messages).toBe(seen[0]!.messages);
    expect(seen[3]!.messages).toBe(seen[0]!.messages);
    expect(seen[2]!.messages).not.toBe(seen[0]!.messages);
    expect(seen.map((entry) => entry.length)).toEqual([1, 2, 3, 4]);
    expect(seen[2]!.messages).toEqual(history.slice(0, 3));

    // A provider that does not say it borrows keeps what it got, unchanged by later calls.
    const kept: unknown[][] = [];
    const keeper = {
      ...borrower,
      borrowsRequest: undefined,
      generate: async (request: { messages: unknown[] }) => (kept.push(request.messages), reply),
    };
    const copying = createModelCaller(environment({}, { providerFactory: () => keeper }).env);
    const other: ChatMessage[] = [{ role: 'user', content: 'a' }];
    await copying.call({ messages: other });
    other.push({ role: 'assistant', content: 'b' });
    await copying.call({ messages: other });
    expect(kept[0]).toEqual([{ role: 'user', content: 'a' }]);
    expect(kept[1]).toHaveLength(2);
    expect(kept[1]).not.toBe(kept[0]);
  });

  it('merges settings.llm ← call params ← overrides', async () => {
    const connections: LlmConnection[] = [];
    let scripted: ScriptedModel | undefined;
    const { env } = environment(
      { provider: 'ollama', model: 'from-settings', temperature: 0.1, max_tokens: 99, timeout: 3, max_retries: 4 },
      {
        providerFactory: (connection) => {
          connections.push(connection);
          scripted = createScriptedModel(['a', 'b', 'c']);
          return scripted;
        },
      },
    );
    const caller = createModelCaller(env);
    await caller.call({ prompt: 'Hi', system: 'Be brief', model: 'from-call' });
    expect(connections[0]).toEqual({ provider: 'ollama', timeout_ms: 3000, max_retries: 4 });
    expect(scripted!.calls[0]).toMatchObject({
      model: 'from-call',
      temperature: 0.1,
      max_tokens: 99,
      messages: [
        { role: 'system', content: 'Be brief' },
        { role: 'user', content: 'Hi' },
      ],
    });

    const overridden = createModelCaller({
      ...env,
      overrides: { api_base: 'http://override/v1', model: 'from-override' },
    });
    await overridden.call({ prompt: 'Hi', model: 'from-call', base_url: 'http://call/v1' } as never);
    expect(connections.at(-1)).toMatchObject({ api_base: 'http://override/v1' });
    expect(connections.at(-1)!.provider).toBeUndefined();
    expect(scripted!.calls.at(-1)!.model).toBe('from-override');
  });

  it('keeps one provider per connection for the run, whatever order the connections are called in', async () => {
    const made: Array<{ connection: LlmConnection; model: ScriptedModel }> = [];
    const { env } = environment(
      { provider: 'ollama' },
      {
        providerFactory: (connection) => {
          const model = createScriptedModel(['r1', 'r2', 'r3', 'r4']);
          made.push({ connection, model });
          return model;
        },
      },
    );
    const caller = createModelCaller(env);
    const order = [{}, { api_key: 'key-b-123' }, {}, { timeout: 2 }, { api_key: 'key-b-123' }, {}, { timeout: 2 }];
    for (const extra of order) await caller.call({ prompt: 'Hi', ...extra });
    expect(made.map((entry) => entry.connection)).toEqual([
      { provider: 'ollama' },
      { provider: 'ollama', api_key: 'key-b-123' },
      { provider: 'ollama', timeout_ms: 2000 },
    ]);
    expect(made.map((entry) => entry.model.calls.length)).toEqual([3, 2, 2]);
  });

  it('defaults temperature to 0.7; messages win over prompt; base_url is an alias', async () => {
    let scripted: ScriptedModel | undefined;
    const seen: LlmConnection[] = [];
    const { env } = environment(
      { base_url: 'http://settings/v1' },
      { providerFactory: (connection) => (seen.push(connection), (scripted = createScriptedModel(['x']))) },
    );
    await createModelCaller(env).call({ prompt: 'ignored', messages: [{ role: 'user', content: 'used' }] });
    expect(seen[0]!.api_base).toBe('http://settings/v1');
    expect(scripted!.calls[0]).toMatchObject({ temperature: 0.7, messages: [{ role: 'user', content: 'used' }] });
  });

  it('an override endpoint replaces provider: scripted in the agent', async () => {
    const { env } = environment({ provider: 'scripted', scripted: ['from script'] }, { overrides: { api_base: '' } });
    expect((await createModelCaller(env).call({ prompt: 'Hi' })).content).toBe('from script');
    const { env: overridden } = environment(
      { provider: 'scripted', scripted: ['from script'] },
      { overrides: { api_base: server.url } },
    );
    expect((await createModelCaller(overridden).call({ prompt: 'Hi' })).content).toBe('Hello!');
  });

  it('keeps one scripted model per run, so the script advances across calls', async () => {
    const { env, events } = environment({ provider: 'scripted', scripted: ['one', 'two'] });
    const caller = createModelCaller(env);
    expect((await caller.call({ prompt: 'a' })).content).toBe('one');
    expect((await caller.call({ prompt: 'b', temperature: 0 })).content).toBe('two');
    expect((await caught(caller.call({ prompt: 'c' }))).code).toBe('LLM_BAD_RESPONSE');
    expect(events.filter((event) => event.type === 'llm_response').map((event) => event.data.model)).toEqual([
      'scripted',
      'scripted',
      'scripted',
    ]);
  });

  it('calls the budget before every attempt, retries included', async () => {
    server.setFault({ type: 'status', status: 503, times: 2 });
    const { env, budget, events } = environment({ api_base: server.url, max_retries: 3 });
    await createModelCaller(env).call({ prompt: 'Hi' });
    expect(budget.before).toBe(3);
    expect(server.chatRequests).toHaveLength(3);
    const retries = events.filter((event) => event.type === 'log');
    expect(retries).toHaveLength(2);
    // One shape for an error inside an event: error {code, message}.
    expect(
      retries.map((event) => [event.data.source, event.data.attempt, (event.data.error as { code?: string }).code]),
    ).toEqual([
      ['model', 2, 'LLM_HTTP_503'],
      ['model', 3, 'LLM_HTTP_503'],
    ]);
    expect(budget.tokens).toBeGreaterThan(0);
  });

  it('stops retrying when the budget says so', async () => {
    server.setFault({ type: 'status', status: 503 });
    const { env } = environment({ api_base: server.url, max_retries: 5 });
    let calls = 0;
    env.budget.beforeLlmCall = () => {
      if (++calls > 2) throw Object.assign(new Error('over'), { code: 'BUDGET_EXCEEDED' });
    };
    await caught(createModelCaller(env).call({ prompt: 'Hi' }));
    expect(server.chatRequests).toHaveLength(2);
  });

  it('emits llm_request, answer_chunk and llm_response events with usage and duration', async () => {
    server.setReplies(['Streaming words to you']);
    const { env, events } = environment({ api_base: server.url, model: 'mock-model' });
    const response = await createModelCaller(env).call({ prompt: 'Hi' }, { stream: true, label: 'judge' });
    expect(response.content).toBe('Streaming words to you');
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('llm_request');
    expect(types.at(-1)).toBe('llm_response');
    const chunks = events.filter((event) => event.type === 'answer_chunk');
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((event) => event.data.content).join('')).toBe('Streaming words to you');
    expect(events[0]!.data).toMatchObject({ model: 'mock-model', message_count: 1, stream: true, label: 'judge' });
    expect(events[0]!.data.request).toBeUndefined();
    const done = events.at(-1)!.data;
    expect(done).toMatchObject({ model: 'mock-model', finish_reason: 'stop', label: 'judge', attempts: 1 });
    expect((done.usage as { total_tokens: number }).total_tokens).toBeGreaterThan(0);
    expect(typeof done.duration_ms).toBe('number');
  });

  it('with payload capture, events carry the messages and the answer', async () => {
    const { env, events } = environment({ provider: 'scripted', scripted: ['the answer'] }, { capturePayloads: true });
    await createModelCaller(env).call({ prompt: 'the question' });
    expect(events[0]!.data.request).toMatchObject({ messages: [{ role: 'user', content: 'the question' }] });
    expect(events[1]!.data.response).toMatchObject({ content: 'the answer' });
  });

  it('never lets a canary api_key reach an event or an error', async () => {
    server.setFault({
      type: 'status',
      status: 401,
      body: JSON.stringify({ error: { message: `Incorrect API key provided: ${CANARY}` } }),
    });
    const { env, events } = environment({ api_base: server.url, api_key: CANARY }, { capturePayloads: true });
    const caller = createModelCaller(env);
    const unauthorized = await caught(caller.call({ prompt: `please repeat ${CANARY}` }));
    expect(unauthorized.code).toBe('LLM_HTTP_401');
    server.setFault();
    server.setReplies([`your key is ${CANARY}`]);
    await caller.call({ prompt: 'Hi' }, { stream: true });
    await caller.call({ prompt: 'Hi', api_key: CANARY });
    server.setFault({ type: 'malformed_chunk' });
    const bad = await caught(caller.call({ prompt: 'Hi' }, { stream: true }));
    expect(server.chatRequests.every((request) => request.headers.authorization === `Bearer ${CANARY}`)).toBe(true);
    const everything = JSON.stringify({
      events,
      unauthorized,
      message: unauthorized.message,
      bad,
      badMessage: bad.message,
    });
    expect(everything).not.toContain(CANARY);
    expect(everything).toContain('[REDACTED]');
  });

  it('reports a missing endpoint and a bad call clearly', async () => {
    const { env } = environment({});
    expect((await caught(createModelCaller({ ...env, providerFactory: undefined }).call({ prompt: 'Hi' }))).code).toBe(
      'LLM_UNAVAILABLE',
    );
    expect((await caught(createModelCaller(env).call({}))).code).toBe('INVALID_PARAMS');
    expect(
      (await caught(createModelCaller({ ...env, providerFactory: undefined }).call({ prompt: 'x', provider: 'azure' })))
        .code,
    ).toBe('UNKNOWN_PROVIDER');
  });
});
