import { describe, expect, it } from 'vitest';
import { createChatStreamAssembler } from './chat-stream-assembler.js';
import { parseChatCompletion } from './parse-chat-completion.js';

const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id: 'c', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }], ...extra });

function assemble(payloads: string[]) {
  const assembler = createChatStreamAssembler('requested');
  for (const payload of payloads) assembler.accept(payload);
  return assembler.result();
}

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'no error';
}

describe('createChatStreamAssembler', () => {
  it('joins content, takes usage from a usage-only final chunk, accepts finish without [DONE]', () => {
    const response = assemble([chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop'), JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } })]);
    expect(response).toEqual({ content: 'Hello', model: 'm', finish_reason: 'stop', usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
  });

  it('lets tokens without letters repeat (digits, spaces, punctuation from unstamped servers)', () => {
    const digit = (text: string) => chunk({ role: 'assistant', content: text });
    const response = assemble([digit('1'), digit('0'), digit('0'), digit(' '), digit(' '), digit('!'), digit('!'), chunk({}, 'stop')]);
    expect(response.content).toBe('100  !!');
  });

  it('tolerates empty trailers after the finish (usage with an empty choice, a restated finish)', () => {
    const response = assemble([chunk({ content: 'ok' }, 'stop'), chunk({}, null, { usage: { prompt_tokens: 1, completion_tokens: 1 } }), chunk({}, 'stop', { timings: {} }), '[DONE]']);
    expect(response).toMatchObject({ content: 'ok', finish_reason: 'stop', usage: { total_tokens: 2 } });
  });

  it('assembles interleaved tool-call deltas by index', () => {
    const response = assemble([
      chunk({ tool_calls: [{ index: 1, id: 'b', function: { name: 'second', arguments: '{"y"' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'first', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x": 1}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: ': 2}' } }] }),
      chunk({}, 'tool_calls'),
      '[DONE]',
    ]);
    expect(response.tool_calls).toEqual([
      { id: 'a', type: 'function', function: { name: 'first', arguments: '{"x": 1}' } },
      { id: 'b', type: 'function', function: { name: 'second', arguments: '{"y": 2}' } },
    ]);
  });

  const refused: { name: string; payloads: string[]; atResult?: boolean }[] = [
    { name: 'a malformed chunk', payloads: ['{"choices": [{"delta": {"content": "x'] },
    { name: 'the same text chunk twice in a row', payloads: [chunk({ content: ' tea' }), chunk({ content: ' tea' })] },
    { name: 'the role chunk twice', payloads: [chunk({ role: 'assistant', content: '' }), chunk({ role: 'assistant', content: '' })] },
    { name: 'the finish chunk twice', payloads: [chunk({ content: '1' }), chunk({}, 'stop'), chunk({}, 'stop')] },
    { name: 'the usage chunk twice', payloads: [chunk({}, 'stop'), JSON.stringify({ choices: [], usage: { total_tokens: 1 } }), JSON.stringify({ choices: [], usage: { total_tokens: 1 } })] },
    { name: 'a tool call start twice', payloads: [chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '' } }] }), chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '' } }] })] },
    { name: 'data after [DONE]', payloads: [chunk({ content: 'a' }, 'stop'), '[DONE]', chunk({ content: 'b' })] },
    { name: 'content after the finish reason', payloads: [chunk({ content: 'a' }, 'stop'), chunk({ content: 'b' })] },
    { name: 'a tool call restarted with a new id', payloads: [chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f' } }] }), chunk({ tool_calls: [{ index: 0, id: 'z', function: { name: 'f' } }] })] },
    { name: 'an error object mid-stream', payloads: [chunk({ content: 'a' }), JSON.stringify({ error: { message: 'overloaded' } })] },
    { name: 'a stream that never finished', payloads: [chunk({ content: 'a' })], atResult: true },
    { name: 'a half tool call', payloads: [chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"x": ' } }] }), '[DONE]'], atResult: true },
    { name: 'a tool call without a name', payloads: [chunk({ tool_calls: [{ index: 0, id: 'a', function: { arguments: '{}' } }] }, 'tool_calls')], atResult: true },
    { name: 'a stream with no choices at all', payloads: [JSON.stringify({ choices: [] }), '[DONE]'], atResult: true },
  ];
  for (const testCase of refused) {
    it(`refuses ${testCase.name} with LLM_BAD_RESPONSE`, () => {
      expect(codeOf(() => assemble(testCase.payloads))).toBe('LLM_BAD_RESPONSE');
    });
  }
});

describe('parseChatCompletion', () => {
  it('parses content, tool calls (object arguments made JSON text) and usage', () => {
    const body = JSON.stringify({
      model: 'x',
      choices: [{ message: { content: null, tool_calls: [{ id: 't', function: { name: 'f', arguments: { a: 1 } } }] }, finish_reason: 'tool_calls' }],
    });
    expect(parseChatCompletion(body, 'm')).toEqual({
      content: '',
      model: 'x',
      finish_reason: 'tool_calls',
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
    });
  });

  it('keeps finish_reason length with empty content as a response', () => {
    expect(parseChatCompletion(JSON.stringify({ choices: [{ message: { content: '' }, finish_reason: 'length' }] }), 'm')).toMatchObject({ content: '', finish_reason: 'length', model: 'm' });
  });

  for (const [name, body] of [
    ['not JSON', '<html>'],
    ['no choices', '{"choices": []}'],
    ['no message', '{"choices": [{}]}'],
    ['content that is not text', '{"choices": [{"message": {"content": 5}}]}'],
    ['tool arguments that are not JSON', '{"choices": [{"message": {"tool_calls": [{"function": {"name": "f", "arguments": "{x"}}]}}]}'],
  ] as const) {
    it(`refuses ${name}`, () => expect(codeOf(() => parseChatCompletion(body, 'm'))).toBe('LLM_BAD_RESPONSE'));
  }
});

describe('tool-call deltas without an index', () => {
  it('a new id starts a call; no id continues the last one', () => {
    const response = assemble([
      chunk({ tool_calls: [{ id: 'a', function: { name: 'first', arguments: '{"x"' } }] }),
      chunk({ tool_calls: [{ function: { arguments: ': 1}' } }] }),
      chunk({ tool_calls: [{ id: 'b', function: { name: 'second', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(response.tool_calls!.map((call) => [call.id, call.function.name, call.function.arguments])).toEqual([
      ['a', 'first', '{"x": 1}'],
      ['b', 'second', '{}'],
    ]);
  });
});
