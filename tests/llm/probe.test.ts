import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { probeEndpoint } from '../../src/llm/probe.js';
import { createOpenAiClient } from '../../src/llm/openai-client.js';
import { probeCommand } from '../../cli/commands/probe.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

const weather = { tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] };
const CANARY = 'sk-probe-canary-55555';
let server: MockOpenAI;
beforeAll(async () => {
  server = await startMockOpenAI({ models: ['llama3.2', 'qwen2.5'] });
});
afterAll(() => server.close());
afterEach(() => vi.unstubAllGlobals());

describe('probeEndpoint', () => {
  it('reports every capability of a capable server', async () => {
    server.setReplies(['ok', '{"answer": "yes"}', weather, weather]);
    const report = await probeEndpoint({ api_base: server.url });
    expect(report).toMatchObject({
      models: ['llama3.2', 'qwen2.5'],
      model: 'llama3.2',
      streams: true,
      json_schema: true,
      native_tools: true,
      streamed_tools: true,
    });
    expect(report.cors_error).toBeUndefined();
    const schemaRequest = server.chatRequests.find((request) => request.body.response_format !== undefined)!;
    expect(schemaRequest.body.response_format.json_schema.schema.required).toEqual(['answer']);
  });

  it('reports what a weaker server lacks, with advice', async () => {
    server.setReplies(['ok', 'Yes, it is blue.', 'It is sunny in Paris.', 'It is sunny.']);
    const report = await probeEndpoint({ api_base: server.url, model: 'qwen2.5' });
    expect(report).toMatchObject({
      model: 'qwen2.5',
      streams: true,
      json_schema: false,
      native_tools: false,
      streamed_tools: false,
    });
    expect(report.advice.join(' ')).toMatch(/json_schema/);
    expect(report.advice.join(' ')).toMatch(/tool_mode: json/);
  });

  it('detects a probable CORS refusal in a browser and says how to fix Ollama and LM Studio', async () => {
    vi.stubGlobal('location', { origin: 'http://localhost:5173', protocol: 'http:' });
    const failing = (async () => {
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof fetch;
    const report = await probeEndpoint({ api_base: 'http://localhost:11434/v1', fetch: failing });
    expect(report.cors_error).toMatch(/CORS/);
    expect(report.cors_error).toMatch(/OLLAMA_ORIGINS/);
    expect(report.cors_error).toMatch(/LM Studio/);
    const error = await createOpenAiClient({ api_base: 'http://localhost:1234/v1', max_retries: 0 }, { fetch: failing })
      .generate({ messages: [{ role: 'user', content: 'x' }] })
      .then(
        () => ({ code: 'none', message: '', details: {} }),
        (caught: unknown) => caught as { code: string; message: string; details: Record<string, unknown> },
      );
    expect(error).toMatchObject({ code: 'LLM_UNAVAILABLE', details: { probable_cors: true } });
    expect(error.message).toMatch(/OLLAMA_ORIGINS/);
  });
});

describe('tea-edge probe', () => {
  it('prints a table and advice, never the API key', async () => {
    server.setReplies(['ok', '{"answer":"no"}', weather, weather]);
    let output = '';
    const code = await probeCommand(['--llm-base-url', server.url, '--llm-api-key', CANARY], {
      stdout: (text) => void (output += text),
      stderr: (text) => void (output += text),
    });
    expect(code).toBe(0);
    expect(output).toMatch(/streaming\s+yes/);
    expect(output).toMatch(/native tool calls\s+yes/);
    expect(output).toContain('Advice:');
    expect(output).not.toContain(CANARY);
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${CANARY}`);
  });

  it('exits 1 when nothing answers', async () => {
    const gone = await startMockOpenAI();
    const url = gone.url;
    await gone.close();
    let output = '';
    const code = await probeCommand(['--llm-base-url', url, '--timeout', '2'], {
      stdout: (text) => void (output += text),
      stderr: () => undefined,
    });
    expect(code).toBe(1);
    expect(output).toMatch(/LLM_UNAVAILABLE/);
  });
});
