/**
 * The probe names the server and what it says about itself, from the routes each server really
 * has (shapes from their source: Ollama api/types.go ShowResponse/ProcessModelResponse and
 * server/routes.go; llama.cpp tools/server /props; vLLM's /v1/models ModelCard with max_model_len;
 * LM Studio's REST API v0 /api/v0/models), over HTTP on 127.0.0.1. Chat and embeddings requests go
 * to the mock OpenAI server behind it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeEndpoint } from '../../src/llm/probe.js';
import { probeCommand } from '../../cli/commands/probe.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

type Routes = Record<string, { status?: number; body: unknown }>;

const SERVERS: Record<string, Routes> = {
  ollama: {
    'GET /v1/models': {
      body: { object: 'list', data: [{ id: 'qwen3:8b', object: 'model', created: 1, owned_by: 'library' }] },
    },
    'GET /api/version': { body: { version: '0.12.3' } },
    'POST /api/show': {
      body: {
        modelfile: '',
        parameters: 'stop "<|im_end|>"',
        template: '{{ .Prompt }}',
        details: { family: 'qwen3' },
        model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 },
        capabilities: ['completion', 'tools', 'thinking'],
      },
    },
    'GET /api/ps': {
      body: {
        models: [
          {
            name: 'qwen3:8b',
            model: 'qwen3:8b',
            size: 1,
            digest: 'x',
            details: {},
            expires_at: '2026-11-28T12:00:00Z',
            size_vram: 1,
            context_length: 4096,
          },
        ],
      },
    },
  },
  llamacpp: {
    'GET /v1/models': {
      body: {
        object: 'list',
        data: [
          {
            id: 'qwen2.5-7b-instruct-q4_k_m.gguf',
            object: 'model',
            created: 1,
            owned_by: 'llamacpp',
            meta: { n_ctx_train: 32768 },
          },
        ],
      },
    },
    'GET /props': {
      body: {
        default_generation_settings: { n_ctx: 4096, params: { n_predict: -1 } },
        total_slots: 1,
        model_path: 'q.gguf',
        chat_template: '…',
        chat_template_caps: { supports_tools: false },
        build_info: 'b6700-abcdef1',
      },
    },
    'POST /v1/embeddings': {
      status: 501,
      body: {
        error: {
          code: 501,
          message: 'This server does not support embeddings. Start it with `--embeddings`',
          type: 'not_supported_error',
        },
      },
    },
  },
  vllm: {
    'GET /v1/models': {
      body: {
        object: 'list',
        data: [
          {
            id: 'Qwen/Qwen2.5-7B-Instruct',
            object: 'model',
            created: 1,
            owned_by: 'vllm',
            root: 'Qwen/Qwen2.5-7B-Instruct',
            parent: null,
            max_model_len: 8192,
            permission: [],
          },
        ],
      },
    },
    'GET /version': { body: { version: '0.11.0' } },
  },
  lmstudio: {
    'GET /v1/models': {
      body: { object: 'list', data: [{ id: 'qwen2.5-7b-instruct', object: 'model', owned_by: 'organization_owner' }] },
    },
    'GET /api/v0/models': {
      body: {
        object: 'list',
        data: [
          {
            id: 'qwen2.5-7b-instruct',
            object: 'model',
            type: 'llm',
            publisher: 'lmstudio-community',
            arch: 'qwen2',
            compatibility_type: 'gguf',
            quantization: 'Q4_K_M',
            state: 'loaded',
            max_context_length: 32768,
            loaded_context_length: 8192,
          },
        ],
      },
    },
  },
};

let mock: MockOpenAI;
const fronts: Server[] = [];
beforeAll(async () => {
  mock = await startMockOpenAI();
});
afterAll(async () => {
  for (const front of fronts) front.close();
  await mock.close();
});

/** A server with `routes`; anything else under /v1 goes to the mock. */
async function front(routes: Routes): Promise<string> {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const key = `${request.method} ${request.url}`;
    const route = routes[key];
    if (route !== undefined) {
      response.writeHead(route.status ?? 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(route.body));
      return;
    }
    if (!request.url!.startsWith('/v1/')) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('404 page not found');
      return;
    }
    const forwarded = await fetch(`${mock.url}${request.url!.slice(3)}`, {
      method: request.method,
      headers: { 'content-type': 'application/json' },
      body: request.method === 'POST' ? Buffer.concat(chunks) : undefined,
    });
    response.writeHead(forwarded.status, {
      'content-type': forwarded.headers.get('content-type') ?? 'application/json',
    });
    response.end(Buffer.from(await forwarded.arrayBuffer()));
  });
  fronts.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const textCall = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';

describe('the probe names the server and its context', () => {
  it('Ollama: version, capabilities, the loaded context from /api/ps, and the context advice', async () => {
    mock.setReplies([
      'ok',
      '{"answer": "yes"}',
      { tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    ]);
    const report = await probeEndpoint({ api_base: await front(SERVERS.ollama!) });
    expect(report.server).toMatchObject({
      kind: 'ollama',
      version: '0.12.3',
      context_size: 4096,
      capabilities: ['completion', 'tools', 'thinking'],
    });
    expect(report.tool_calls).toBe('native');
    expect(report.advice.join('\n')).toContain('OLLAMA_CONTEXT_LENGTH');
  });

  it('llama.cpp: n_ctx per slot, a template without tools, tool calls as text, embeddings off', async () => {
    mock.setReplies(['ok', '{"answer": "yes"}', textCall]);
    const report = await probeEndpoint({ api_base: await front(SERVERS.llamacpp!) });
    expect(report.server).toMatchObject({
      kind: 'llamacpp',
      version: 'b6700-abcdef1',
      context_size: 4096,
      template_supports_tools: false,
    });
    expect(report).toMatchObject({
      native_tools: false,
      tool_calls: 'text',
      tool_call_format: 'hermes',
      embeddings: false,
    });
    expect(report.errors.embeddings).toContain('--embeddings');
    const advice = report.advice.join('\n');
    expect(advice).toContain('--jinja');
    expect(advice).toContain('llama-server with --embeddings');
    expect(advice).toContain('raise -c');
  });

  it('vLLM: max_model_len from /v1/models, and the tool-parser flags when calls come back as text', async () => {
    mock.setReplies(['ok', '{"answer": "yes"}', '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}']);
    const report = await probeEndpoint({ api_base: await front(SERVERS.vllm!) });
    expect(report.server).toMatchObject({ kind: 'vllm', context_size: 8192 });
    expect(report).toMatchObject({ tool_calls: 'text', tool_call_format: 'mistral' });
    expect(report.advice.join('\n')).toContain('--enable-auto-tool-choice');
  });

  it('LM Studio: the loaded context length from /api/v0/models', async () => {
    mock.setReplies(['ok', '{"answer": "yes"}', 'It is sunny.']);
    const report = await probeEndpoint({ api_base: await front(SERVERS.lmstudio!) });
    expect(report.server).toMatchObject({ kind: 'lmstudio', context_size: 8192 });
    expect(report.tool_calls).toBe('none');
    expect(report.advice.join('\n')).toContain('LM Studio marks for tool use');
  });

  it('a server that answers none of the routes is unknown, and the CLI prints what it found', async () => {
    mock.setReplies(['ok', '{"answer": "yes"}', textCall]);
    let output = '';
    const code = await probeCommand(
      ['--llm-base-url', await front({ 'GET /v1/models': { body: { data: [{ id: 'm' }] } } })],
      { stdout: (text) => void (output += text), stderr: () => undefined },
    );
    expect(code).toBe(0);
    expect(output).toMatch(/server\s+unknown/);
    expect(output).toMatch(/tool calls arrive as\s+text \(hermes/);
    expect(output).toMatch(/context size\s+not reported/);
  });

  it('tells thinking in <think> tags from a reasoning field, and says which server flag sends it apart', async () => {
    mock.setReplies(['<think>The user wants ok.</think>ok', '{"answer": "yes"}', 'It is sunny.']);
    const tags = await probeEndpoint({ api_base: await front(SERVERS.llamacpp!) });
    expect(tags.reasoning).toBe('think_tags');
    expect(tags.advice.join('\n')).toContain('--reasoning-format deepseek');
    mock.setReplies(['ok', '{"answer": "yes"}', 'It is sunny.']);
    const none = await probeEndpoint({ api_base: await front(SERVERS.vllm!) });
    expect(none.reasoning).toBe('none');
    expect(none.advice.join('\n')).not.toContain('<think>');
  });

  it('a server that is down gets no advice about the agent', async () => {
    const gone = await startMockOpenAI();
    const url = gone.url;
    await gone.close();
    const report = await probeEndpoint({ api_base: url, timeout_ms: 2_000 });
    expect(report.advice).toHaveLength(1);
    expect(report.advice[0]).toMatch(/did not answer/);
    expect(report.advice[0]).not.toMatch(/json_schema|tool_mode|llm.stream/);
  });
});
