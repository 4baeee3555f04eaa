/**
 * The reflection examples run out of the box on their scripted model, and unchanged but for the
 * endpoint against an OpenAI-compatible server (the mock server, answering the same texts).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import type { RunOptions, RunResult } from '../../src/graph/run-types.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

const read = (name: string) => readFileSync(new URL(`../../examples/${name}.yaml`, import.meta.url), 'utf8');

async function runExample(
  name: string,
  options: RunOptions = {},
): Promise<{ result: RunResult; attempts: Array<Record<string, unknown>> }> {
  const agent = loadAgent(read(name), { file: `${name}.yaml` });
  const started = runAgent(agent, {}, options);
  const attempts: Array<Record<string, unknown>> = [];
  for await (const event of started) if (event.type === 'reflection_attempt') attempts.push(event.data);
  return { result: await started.result, attempts };
}

const expectations: Record<string, (result: RunResult, attempts: Array<Record<string, unknown>>) => void> = {
  'reflection-json-schema': (result, attempts) => {
    expect(result.state).toMatchObject({
      valid: true,
      attempts: 2,
      stop_reason: 'valid',
      card: { name: 'Ada Lovelace', email: 'ada@example.org' },
    });
    expect(attempts.map((attempt) => attempt.valid)).toEqual([false, true]);
    expect((attempts[0]!.errors as Array<{ message: string }>)[0]!.message).toContain('email');
  },
  'reflection-judge': (result) => {
    expect(result.state).toMatchObject({ accepted: true, drafts: 2, editor: 'Short, friendly, mentions the price.' });
    expect(String(result.state.blurb)).toContain('$12');
  },
  'reflection-lua': (result, attempts) => {
    expect(result.state).toMatchObject({ valid: true, attempts: 2, tags: ['tea', 'health', 'morning'] });
    expect((attempts[0]!.errors as Array<{ message: string }>).map((error) => error.message)).toEqual([
      "tag 'Tea' must be lowercase",
      "duplicate tag 'tea'",
      "tag 'Health' must be lowercase",
    ]);
  },
  'reflection-return-best': (result) => {
    expect(result.state).toMatchObject({ valid: false, score: 0.8, stop_reason: 'max_iterations', drafts: 3 });
    expect(String(result.state.haiku)).toContain('jade leaves');
  },
};

describe('reflection examples on the scripted model', () => {
  for (const [name, check] of Object.entries(expectations)) {
    it(`${name} runs out of the box`, async () => {
      const { result, attempts } = await runExample(name);
      expect(result.error).toBeUndefined();
      expect(result.status).toBe('completed');
      check(result, attempts);
    });
  }
});

describe('reflection examples against an OpenAI-compatible endpoint', () => {
  let server: MockOpenAI | undefined;
  beforeAll(async () => {
    server = await startMockOpenAI({ replies: [] });
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const [name, check] of Object.entries(expectations)) {
    it(`${name} runs unchanged but for the endpoint`, async () => {
      const script = (parse(read(name)) as { settings: { llm: { scripted: string[] } } }).settings.llm.scripted;
      server!.setReplies(script.map((content) => ({ content })));
      const before = server!.requests.length;
      const { result, attempts } = await runExample(name, {
        llm: { overrides: { api_base: server!.url, provider: 'openai-compatible' } },
      });
      expect(result.error).toBeUndefined();
      check(result, attempts);
      const sent = server!.requests.slice(before).filter((request) => request.path.endsWith('/chat/completions'));
      expect(sent).toHaveLength(script.length);
      expect(sent[0]!.body.model).toBe('qwen2.5:3b-instruct');
    });
  }
});
