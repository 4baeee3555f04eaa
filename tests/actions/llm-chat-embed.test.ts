/**
 * llm.chat and llm.embed against the mock OpenAI-compatible server on 127.0.0.1 (real HTTP), and
 * llm.embed on the scripted model (offline vectors).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { loadError, runYaml } from '../engine/helpers.js';

let server: MockOpenAI;
beforeAll(async () => {
  server = await startMockOpenAI({ replies: ['chat answer'] });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.setFault();
  server.setEmbeddingsFault();
});

describe('llm.chat', () => {
  it("sends the messages as given, with TEA's max_tokens default of 100, and returns {content, usage}", async () => {
    const { result } = await runYaml(
      `
settings: { llm: { api_base: "${server.url}", model: chat-model } }
nodes:
  - name: chat
    action: llm.chat
    with:
      messages:
        - { role: system, content: "You are terse." }
        - { role: user, content: "{{ state.question }}" }
    output: reply
`,
      { question: 'Why?' },
    );
    expect(result.status).toBe('completed');
    expect(result.state.reply).toMatchObject({ content: 'chat answer', finish_reason: 'stop' });
    const body = server.chatRequests[0]!.body;
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Why?' },
    ]);
    expect(body.max_tokens).toBe(100);
    expect(body.model).toBe('chat-model');
  });

  it('max_tokens from the call or from settings.llm wins over the default', async () => {
    await runYaml(`
settings: { llm: { api_base: "${server.url}", max_tokens: 900 } }
nodes:
  - { name: c, uses: llm.chat, with: { messages: [{ role: user, content: hi }] } }
  - { name: d, uses: llm.chat, with: { messages: [{ role: user, content: hi }], max_tokens: 7 } }
`);
    expect(server.chatRequests.map((request) => request.body.max_tokens)).toEqual([900, 7]);
  });

  it('without messages it is refused at load (prompt is not an llm.chat key)', () => {
    const error = loadError(`
settings: { llm: { api_base: "${server.url}" } }
nodes:
  - { name: c, uses: llm.chat, with: { prompt: hi } }
`);
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toContain('prompt');
    expect(server.chatRequests).toHaveLength(0);
  });

  it('a server failure is the typed LLM error (not a result with an error key)', async () => {
    server.setFault({ type: 'status', status: 500 });
    const { result } = await runYaml(`
settings: { llm: { api_base: "${server.url}", max_retries: 0 } }
nodes:
  - { name: c, uses: llm.chat, with: { messages: [{ role: user, content: hi }] } }
`);
    expect(result.error?.code).toBe('LLM_HTTP_500');
  });
});

describe('llm.embed over /v1/embeddings', () => {
  it('one text → {embedding, dimensions, model}; the request carries model and input', async () => {
    const { result, events } = await runYaml(
      `
settings: { llm: { api_base: "${server.url}", model: chat-model } }
nodes:
  - name: embed
    action: llm.embed
    with: { text: "{{ state.doc }}", model: nomic-embed-text }
`,
      { doc: 'edge agents are small' },
    );
    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({ embedding: [21, 4, 7, 1], dimensions: 4, model: 'nomic-embed-text' });
    expect(server.embeddingRequests[0]!.body).toEqual({ model: 'nomic-embed-text', input: ['edge agents are small'] });
    const request = events.find((event) => event.type === 'llm_request')!;
    expect(request.data).toMatchObject({ kind: 'embeddings', input_count: 1 });
    const response = events.find((event) => event.type === 'llm_response')!;
    expect(response.data).toMatchObject({ kind: 'embeddings', dimensions: 4, attempts: 1 });
  });

  it('a list of texts → `embeddings` in input order; settings.llm.model is the default model', async () => {
    const { result } = await runYaml(`
settings: { llm: { api_base: "${server.url}", model: embed-default } }
nodes:
  - { name: e, uses: llm.embed, with: { text: [a, "bb bb", "ccc ccc ccc"] }, output: vectors }
`);
    const vectors = result.state.vectors as { embeddings: number[][]; embedding: number[] };
    expect(vectors.embeddings.map((vector) => vector[0])).toEqual([1, 5, 11]);
    expect(vectors.embedding).toEqual(vectors.embeddings[0]);
    expect(server.embeddingRequests[0]!.body.model).toBe('embed-default');
  });

  it('counts in the LLM-call budget', async () => {
    const { result } = await runYaml(`
settings: { llm: { api_base: "${server.url}" }, limits: { max_llm_calls: 1 } }
nodes:
  - { name: one, uses: llm.embed, with: { text: a } }
  - { name: two, uses: llm.embed, with: { text: b } }
`);
    expect(result.error?.code).toBe('BUDGET_EXCEEDED');
    expect(server.embeddingRequests).toHaveLength(1);
  });

  it('a 503 is retried, then answered; a 500 after the retries is LLM_HTTP_500 (infrastructure, ends the node)', async () => {
    server.setEmbeddingsFault({ type: 'status', status: 503, retryAfter: '0', times: 1 });
    const retried = await runYaml(`
settings: { llm: { api_base: "${server.url}", max_retries: 1 } }
nodes:
  - { name: e, uses: llm.embed, with: { text: again } }
`);
    expect(retried.result.status).toBe('completed');
    expect(server.embeddingRequests).toHaveLength(2);
    server.setEmbeddingsFault({ type: 'status', status: 500 });
    const failed = await runYaml(`
settings: { llm: { api_base: "${server.url}", max_retries: 0 } }
nodes:
  - { name: e, uses: llm.embed, with: { text: x } }
`);
    expect(failed.result.error?.code).toBe('LLM_HTTP_500');
  });

  it("llama.cpp's HTTP 501 (started without --embeddings) is reported at once, in the server's words, with the fix", async () => {
    const body = JSON.stringify({
      error: {
        code: 501,
        message: 'This server does not support embeddings. Start it with `--embeddings`',
        type: 'not_supported_error',
      },
    });
    server.setEmbeddingsFault({ type: 'status', status: 501, body });
    const { result } = await runYaml(`
settings: { llm: { api_base: "${server.url}", max_retries: 2 } }
nodes:
  - { name: e, uses: llm.embed, with: { text: x } }
`);
    expect(result.error?.code).toBe('LLM_HTTP_501');
    expect(result.error?.message).toContain('Start it with `--embeddings`');
    expect(server.embeddingRequests).toHaveLength(1);
  });

  it("a 200 that is only the server's error (LM Studio, wrong path) quotes it and says api_base must end in /v1", async () => {
    server.setEmbeddingsFault({
      type: 'status',
      status: 200,
      body: JSON.stringify({ error: 'Unexpected endpoint or method. (POST /embeddings)' }),
    });
    const { result } = await runYaml(`
settings: { llm: { api_base: "${server.url}", max_retries: 2 } }
nodes:
  - { name: e, uses: llm.embed, with: { text: x } }
`);
    expect(result.error).toMatchObject({ code: 'LLM_BAD_RESPONSE', details: { reason: 'wrong_endpoint' } });
    expect(result.error?.message).toContain('Unexpected endpoint or method. (POST /embeddings)');
    expect(server.embeddingRequests).toHaveLength(1);
  });

  it('a body that is not embeddings is LLM_BAD_RESPONSE; a server that is not there is LLM_UNAVAILABLE', async () => {
    server.setEmbeddingsFault({ type: 'not_json' });
    const bad = await runYaml(`
settings: { llm: { api_base: "${server.url}", max_retries: 0 } }
nodes:
  - { name: e, uses: llm.embed, with: { text: x } }
`);
    expect(bad.result.error?.code).toBe('LLM_BAD_RESPONSE');
    const gone = await runYaml(`
settings: { llm: { api_base: "http://127.0.0.1:9/v1", max_retries: 0 } }
nodes:
  - { name: e, uses: llm.embed, with: { text: x } }
`);
    expect(gone.result.error?.code).toBe('LLM_UNAVAILABLE');
  });

  it('the host key is sent as a bearer token and never appears in the result or events', async () => {
    const { result, events } = await runYaml(
      `
nodes:
  - { name: e, uses: llm.embed, with: { text: secret-free } }
`,
      {},
      { llm: { overrides: { api_base: server.url, api_key: 'sk-host-key-123456' } } },
    );
    expect(result.status).toBe('completed');
    expect(server.embeddingRequests[0]!.headers.authorization).toBe('Bearer sk-host-key-123456');
    expect(JSON.stringify({ state: result.state, events })).not.toContain('sk-host-key-123456');
  });

  it('backend: local is refused with a sentence; empty text lists are INVALID_PARAMS', async () => {
    const local = await runYaml(`
settings: { llm: { api_base: "${server.url}" } }
nodes:
  - { name: e, uses: llm.embed, with: { text: x, backend: local } }
`);
    expect(local.result.status).toBe('failed');
    const empty = await runYaml(`
settings: { llm: { api_base: "${server.url}" } }
nodes:
  - { name: e, uses: llm.embed, with: { text: [] } }
`);
    expect(empty.result.error?.code).toBe('INVALID_PARAMS');
    expect(server.embeddingRequests).toHaveLength(0);
  });
});

describe('llm.embed on the scripted model', () => {
  const yaml = `
settings: { llm: { provider: scripted, scripted: ["unused"] } }
nodes:
  - name: e
    uses: llm.embed
    with: { text: ["the cat sat on the mat", "a cat sat on a mat", "quarterly revenue grew"] }
    output: e
`;

  it('gives deterministic unit vectors; texts sharing words are closer than unrelated ones', async () => {
    const first = await runYaml(yaml);
    const second = await runYaml(yaml);
    const vectors = (first.result.state.e as { embeddings: number[][] }).embeddings;
    expect(vectors).toEqual((second.result.state.e as { embeddings: number[][] }).embeddings);
    const dot = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * b[index]!, 0);
    expect(Math.abs(dot(vectors[0]!, vectors[0]!) - 1)).toBeLessThan(1e-4);
    expect(dot(vectors[0]!, vectors[1]!)).toBeGreaterThan(dot(vectors[0]!, vectors[2]!));
    expect((first.result.state.e as { dimensions: number }).dimensions).toBe(64);
  });

  it('does not consume the chat script', async () => {
    const { result } = await runYaml(`
settings: { llm: { provider: scripted, scripted: ["only answer"] } }
nodes:
  - { name: e, uses: llm.embed, with: { text: hi } }
  - { name: c, uses: llm.call, with: { prompt: hi }, output: reply }
`);
    expect(result.status).toBe('completed');
    expect((result.state.reply as { content: string }).content).toBe('only answer');
  });
});

it('llm.chat and llm.embed refuse an undeclared key (closed schema), at load or before any request', async () => {
  for (const action of ['llm.chat', 'llm.embed']) {
    const withText = action === 'llm.chat' ? 'messages: [{ role: user, content: hi }]' : 'text: hi';
    const yaml = `
settings: { llm: { api_base: "${server.url}" } }
nodes:
  - { name: c, uses: ${action}, with: { ${withText}, max_token: 5 } }
`;
    let code: string | undefined;
    try {
      code = (await runYaml(yaml)).result.error?.code;
    } catch {
      code = loadError(yaml).code;
    }
    expect(code, action).toBe('INVALID_PARAMS');
  }
  expect(server.chatRequests.length + server.embeddingRequests.length).toBe(0);
});
