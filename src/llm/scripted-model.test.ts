import { describe, expect, it } from 'vitest';
import { createScriptedModel } from './scripted-model.js';
import type { LlmRequest, LlmStreamPart } from '../core/model-provider.js';

const ask = (content: string): LlmRequest => ({
  messages: [
    { role: 'system', content: 'sys' },
    { role: 'user', content },
  ],
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'no error';
}

describe('createScriptedModel', () => {
  it('answers from a list in order, records calls, then fails clearly', async () => {
    const model = createScriptedModel(['first', { content: { name: 'Alice' } }]);
    expect((await model.generate(ask('a'))).content).toBe('first');
    expect((await model.generate(ask('b'))).content).toBe('{"name":"Alice"}');
    expect(model.calls.map((call) => call.messages[1]!.content)).toEqual(['a', 'b']);
    expect(model.remaining).toBe(0);
    try {
      await model.generate(ask('c'));
      expect.unreachable();
    } catch (error) {
      expect((error as { code: string }).code).toBe('LLM_BAD_RESPONSE');
      expect((error as Error).message).toContain('no response left for call 3');
    }
  });

  it('labels responses as scripted and estimates usage deterministically', async () => {
    const model = createScriptedModel([
      '12345678',
      { content: 'x', usage: { prompt_tokens: 7, completion_tokens: 3 } },
    ]);
    const first = await model.generate(ask('abcd'));
    expect(first).toMatchObject({
      model: 'scripted',
      finish_reason: 'stop',
      usage: { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 },
    });
    expect((await model.generate(ask('abcd'))).usage).toEqual({
      prompt_tokens: 7,
      completion_tokens: 3,
      total_tokens: 10,
    });
  });

  it('returns tool calls with JSON arguments and finish_reason tool_calls', async () => {
    const model = createScriptedModel([{ tool_calls: [{ name: 'math_calculate', arguments: { expression: '2+2' } }] }]);
    const response = await model.generate(ask('sum'));
    expect(response.finish_reason).toBe('tool_calls');
    expect(response.tool_calls).toEqual([
      {
        id: 'call_scripted_0',
        type: 'function',
        function: { name: 'math_calculate', arguments: '{"expression":"2+2"}' },
      },
    ]);
  });

  it('matches rules against the last user message, with a default', async () => {
    const model = createScriptedModel({
      rules: [
        { match: 'weather', response: 'Sunny.' },
        { match: { regex: '^capital of (\\w+)', flags: 'i' }, response: { content: 'Paris' } },
      ],
      default: 'I do not know.',
    });
    expect((await model.generate(ask('the weather today?'))).content).toBe('Sunny.');
    expect((await model.generate(ask('Capital of France'))).content).toBe('Paris');
    expect((await model.generate(ask('something else'))).content).toBe('I do not know.');
    const list = createScriptedModel([{ match: 'hi', response: 'hello' }]);
    expect((await list.generate(ask('hi there'))).content).toBe('hello');
    expect(await codeOf(list.generate(ask('bye')))).toBe('LLM_BAD_RESPONSE');
  });

  it('streams content in chunks (by word, or in stream_chunks pieces) and ends with done', async () => {
    const model = createScriptedModel([
      'one two three',
      { content: 'abcdefgh', stream_chunks: 4 },
      { tool_calls: [{ name: 't', arguments: {} }] },
    ]);
    const read = async () => {
      const parts: LlmStreamPart[] = [];
      for await (const part of model.stream(ask('x'))) parts.push(part);
      return parts;
    };
    const words = await read();
    expect(words.filter((part) => part.type === 'delta').map((part) => (part as { content: string }).content)).toEqual([
      'one ',
      'two ',
      'three',
    ]);
    expect(words.at(-1)).toMatchObject({ type: 'done', response: { content: 'one two three' } });
    const pieces = await read();
    expect(pieces.filter((part) => part.type === 'delta')).toHaveLength(4);
    const tools = await read();
    expect(tools.filter((part) => part.type === 'tool_call_delta')).toEqual([
      { type: 'tool_call_delta', index: 0, name: 't', arguments: '{}' },
    ]);
  });

  it('can script an LLM error and a delay that cancellation interrupts', async () => {
    const model = createScriptedModel([{ error: 'LLM_HTTP_503' }, { content: 'late', delay_ms: 10_000 }]);
    expect(await codeOf(model.generate(ask('x')))).toBe('LLM_HTTP_503');
    const controller = new AbortController();
    const pending = model.generate(ask('y'), controller.signal);
    controller.abort();
    expect(await codeOf(pending)).toBe('CANCELLED');
  });

  it('runs regex rules in linear time on hostile prompts (issue 12)', async () => {
    const model = createScriptedModel({
      rules: [
        { match: { regex: '^(a+)+$' }, response: 'nested' },
        { match: { regex: '^a*a*a*a*a*b$' }, response: 'stars' },
        { match: { regex: '^(\\w+\\s?)*$', flags: 'i' }, response: 'words' },
        { match: { regex: '^(?:\\p{L}+\\s?)*!$', flags: 'u' }, response: 'letters' },
        { match: { regex: '^(.*,){5}x$', flags: 's' }, response: 'commas' },
      ],
      default: 'none',
    });
    expect((await model.generate(ask(`${'a'.repeat(300)}?`))).content).toBe('none');
    expect((await model.generate(ask(`${'word '.repeat(5000)}?`))).content).toBe('none');
    expect((await model.generate(ask(`${'é '.repeat(5000)}!`))).content).toBe('letters');
    expect((await model.generate(ask(','.repeat(20_000)))).content).toBe('none');
    expect((await model.generate(ask('a'.repeat(300)))).content).toBe('nested');
  }, 5_000);

  it('a rule that would take too many matcher steps ends with BUDGET_EXCEEDED', async () => {
    const model = createScriptedModel({
      rules: [{ match: { regex: '(?:[a-z]{0,50}x){40}' }, response: 'x' }],
      default: 'none',
    });
    expect(await codeOf(model.generate(ask('a'.repeat(500_000))))).toBe('BUDGET_EXCEEDED');
    expect((await model.generate(ask('ax'.repeat(40)))).content).toBe('x');
  }, 10_000);

  it('refuses regex rules the linear-time engine cannot run, naming the rule', () => {
    for (const regex of ['(?=a)a', '(?<!x)y', '(a)\\1', '(?<n>a)\\k<n>']) {
      expect(() => createScriptedModel({ rules: [{ match: { regex }, response: 'x' }] })).toThrow(
        expect.objectContaining({
          code: 'INVALID_PARAMS',
          message: expect.stringContaining('scripted.rules[0].match.regex'),
        }),
      );
    }
  });

  it('refuses a malformed script with INVALID_PARAMS', () => {
    for (const bad of [
      42,
      [{ contnet: 'typo' }],
      [{ error: 'NOPE' }],
      { rules: [{ match: { regex: '(' }, response: 'x' }] },
      { rules: [{ match: { regex: '(a)\\1' }, response: 'x' }] },
      [{ tool_calls: [{}] }],
    ]) {
      expect(() => createScriptedModel(bad)).toThrow(expect.objectContaining({ code: 'INVALID_PARAMS' }));
    }
  });
});
