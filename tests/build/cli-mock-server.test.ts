/**
 * `npx tea-edge run` against a mock OpenAI-compatible server over real HTTP, the way agents will be
 * checked: example agents unchanged but for the endpoint (--llm-base-url), faults included.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runCli as cli } from '../support/run-cli.js';
import { startMockOpenAI } from '../support/mock-openai-server.js';

describe('tea-edge run against a mock OpenAI-compatible server', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('the JSON-schema reflection example self-corrects through HTTP', async () => {
    const server = await startMockOpenAI({
      replies: [
        'Sure! ```json\n{"name": "Grace Hopper", "role": "admiral"}\n```',
        '{"name": "Grace Hopper", "email": "grace@example.org", "role": "admiral"}',
      ],
    });
    close = () => server.close();
    const result = await cli([
      'run',
      'examples/reflection-json-schema.yaml',
      '--llm-base-url',
      server.url,
      '--llm-model',
      'mock-model',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const chat = server.requests.filter((request) => request.path.endsWith('/chat/completions'));
    expect(chat.length).toBeGreaterThanOrEqual(1);
    expect(chat.every((request) => request.body.model === 'mock-model')).toBe(true);
    const contact = JSON.parse(result.stdout).contact;
    expect(contact.valid).toBe(true);
    expect(contact.iterations).toBe(2);
    expect(contact.output).toEqual({ name: 'Grace Hopper', email: 'grace@example.org', role: 'admiral' });
    expect(contact.reflection_history[0].valid).toBe(false);
  });

  it('a model server that keeps failing ends in LLM_HTTP_503 after retries, exit 1', async () => {
    const server = await startMockOpenAI({ replies: ['x'] });
    server.setFault({ type: 'status', status: 503, retryAfter: '0' });
    close = () => server.close();
    const result = await cli([
      'run',
      'tests/agents/scripted-llm.yaml',
      '--input',
      '{"country":"France"}',
      '--llm-base-url',
      server.url,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/LLM_HTTP_503/);
  });

  it('--stream prints the model events of a run over HTTP, ending with done', async () => {
    const server = await startMockOpenAI({ replies: ['Paris is the capital of France.'], chunkSize: 5 });
    close = () => server.close();
    const agent = path.join(ROOT, 'tests/agents/scripted-llm.yaml');
    const result = await cli([
      'run',
      agent,
      '--input',
      '{"country":"France"}',
      '--llm-base-url',
      server.url,
      '--stream',
    ]);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.at(-1).type).toBe('done');
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['llm_request', 'llm_response']));
    expect(events.at(-1).data.state.verdict).toBe('unknown');
  });
});

describe('record and replay through the CLI', () => {
  it('a recorded run replays with no network to the same state; a changed request is reported', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const traceDir = mkdtempSync(path.join(tmpdir(), 'tea-record-'));
    const server = await startMockOpenAI({ replies: ['Paris'] });
    const recorded = await cli([
      'run',
      'tests/agents/scripted-llm.yaml',
      '--input',
      '{"country":"France"}',
      '--llm-base-url',
      server.url,
      '--record',
      '--trace-dir',
      traceDir,
      '--stream',
    ]);
    await server.close();
    expect(recorded.code).toBe(0);
    const events = recorded.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const runId = events[0].run_id;
    expect(events.at(-1).data.state.verdict).toBe('right: Paris');

    const replayed = await cli([
      'run',
      'tests/agents/scripted-llm.yaml',
      '--input',
      '{"country":"France"}',
      '--llm-base-url',
      'http://127.0.0.1:9/v1',
      '--replay',
      path.join(traceDir, runId),
    ]);
    expect(replayed.stderr).toBe('');
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.stdout).verdict).toBe('right: Paris');

    const changed = await cli([
      'run',
      'tests/agents/scripted-llm.yaml',
      '--input',
      '{"country":"Spain"}',
      '--replay',
      path.join(traceDir, runId),
    ]);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toMatch(/LLM_BAD_RESPONSE/);
  });
});
