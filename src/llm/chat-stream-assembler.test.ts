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
    const response = assemble([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({}, 'stop'),
      JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } }),
    ]);
    expect(response).toEqual({
      content: 'Hello',
      model: 'm',
      finish_reason: 'stop',
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
  });

  it('accepts repeated identical chunks: a model repeating a token is not a fault', () => {
    const piece = (text: string) => chunk({ role: 'assistant', content: text });
    const response = assemble([
      piece('1'),
      piece('0'),
      piece('0'),
      piece(' very'),
      piece(' very'),
      piece(' very'),
      piece('!'),
      piece('!'),
      chunk({}, 'stop'),
      chunk({}, 'stop'),
    ]);
    expect(response.content).toBe('100 very very very!!');
  });

  it('accepts a repeated role chunk, tool-call start, usage block and restated finish', () => {
    const start = chunk({
      role: 'assistant',
      tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '' } }],
    });
    const usage = JSON.stringify({ choices: [], usage: { prompt_tokens: 2, completion_tokens: 1 } });
    const response = assemble([
      chunk({ role: 'assistant', content: '' }),
      chunk({ role: 'assistant', content: '' }),
      start,
      start,
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
      usage,
      usage,
      '[DONE]',
    ]);
    expect(response).toMatchObject({
      finish_reason: 'tool_calls',
      usage: { total_tokens: 3 },
      tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{}' } }],
    });
  });

  it('tolerates empty trailers after the finish (usage with an empty choice, a restated finish)', () => {
    const response = assemble([
      chunk({ content: 'ok' }, 'stop'),
      chunk({}, null, { usage: { prompt_tokens: 1, completion_tokens: 1 } }),
      chunk({}, 'stop', { timings: {} }),
      '[DONE]',
    ]);
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
    {
      name: 'a second finish that contradicts the first',
      payloads: [chunk({ content: '1' }), chunk({}, 'stop'), chunk({}, 'length')],
    },
    { name: 'data after [DONE]', payloads: [chunk({ content: 'a' }, 'stop'), '[DONE]', chunk({ content: 'b' })] },
    { name: 'content after the finish reason', payloads: [chunk({ content: 'a' }, 'stop'), chunk({ content: 'b' })] },
    {
      name: 'a tool call that changes its name',
      payloads: [
        chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f' } }] }),
        chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'g' } }] }),
      ],
    },
    {
      name: 'an error object mid-stream',
      payloads: [chunk({ content: 'a' }), JSON.stringify({ error: { message: 'overloaded' } })],
    },
    { name: 'a stream that never finished', payloads: [chunk({ content: 'a' })], atResult: true },
    {
      name: 'a half tool call',
      payloads: [
        chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"x": ' } }] }),
        '[DONE]',
      ],
      atResult: true,
    },
    {
      name: 'a tool call without a name',
      payloads: [chunk({ tool_calls: [{ index: 0, id: 'a', function: { arguments: '{}' } }] }, 'tool_calls')],
      atResult: true,
    },
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
      choices: [
        {
          message: { content: null, tool_calls: [{ id: 't', function: { name: 'f', arguments: { a: 1 } } }] },
          finish_reason: 'tool_calls',
        },
      ],
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
    expect(
      parseChatCompletion(JSON.stringify({ choices: [{ message: { content: '' }, finish_reason: 'length' }] }), 'm'),
    ).toMatchObject({ content: '', finish_reason: 'length', model: 'm' });
  });

  it('keeps reasoning from the message fields and from <think> tags out of the content', () => {
    const body = JSON.stringify({
      choices: [
        { message: { content: '<think>why</think>\nBecause.', reasoning_content: 'field' }, finish_reason: 'stop' },
      ],
    });
    expect(parseChatCompletion(body, 'm')).toMatchObject({ content: 'Because.', reasoning: 'field\n\nwhy' });
  });

  it('a 200 body that is only an error quotes it and says what to fix (LM Studio, wrong path)', () => {
    let caught: { code: string; message: string; details: Record<string, unknown> } | undefined;
    try {
      parseChatCompletion('{"error":"Unexpected endpoint or method. (POST /chat/completions)"}', 'm');
    } catch (error) {
      caught = error as typeof caught;
    }
    expect(caught).toMatchObject({
      code: 'LLM_BAD_RESPONSE',
      details: { reason: 'wrong_endpoint', server_error: true },
    });
    expect(caught!.message).toContain('Unexpected endpoint or method. (POST /chat/completions)');
    expect(caught!.message).toContain('/v1');
  });

  for (const [name, body] of [
    ['not JSON', '<html>'],
    ['no choices', '{"choices": []}'],
    ['no message', '{"choices": [{}]}'],
    ['content that is not text', '{"choices": [{"message": {"content": 5}}]}'],
    [
      'tool arguments that are not JSON',
      '{"choices": [{"message": {"tool_calls": [{"function": {"name": "f", "arguments": "{x"}}]}}]}',
    ],
  ] as const) {
    it(`refuses ${name}`, () => expect(codeOf(() => parseChatCompletion(body, 'm'))).toBe('LLM_BAD_RESPONSE'));
  }
});

describe('parallel tool calls sharing an index (Ollama 0.20.x, SGLang)', () => {
  it('a new id at a used index starts a new call; fragments without id continue the latest one there', () => {
    const response = assemble([
      chunk({
        tool_calls: [{ index: 0, id: 'call_1', function: { name: 'weather', arguments: '{"city": "Paris"}' } }],
      }),
      chunk({ tool_calls: [{ index: 0, id: 'call_2', function: { name: 'weather', arguments: '{"city"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ': "Rome"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(response.tool_calls!.map((call) => [call.id, call.function.arguments])).toEqual([
      ['call_1', '{"city": "Paris"}'],
      ['call_2', '{"city": "Rome"}'],
    ]);
  });

  it('the stream parts number each call by its order of appearance', () => {
    const assembler = createChatStreamAssembler('m');
    const first = assembler.accept(
      chunk({ tool_calls: [{ index: 0, id: 'x', function: { name: 'a', arguments: '{}' } }] }),
    );
    const second = assembler.accept(
      chunk({ tool_calls: [{ index: 0, id: 'y', function: { name: 'b', arguments: '{}' } }] }),
    );
    expect([first, second].map((delta) => delta !== 'done' && delta.toolCalls[0]!.index)).toEqual([0, 1]);
  });
});

describe('errors the server reports in the stream', () => {
  it('quotes the server message and explains a context overflow', () => {
    const assembler = createChatStreamAssembler('m', { secrets: ['sk-secret-value'] });
    const payload = JSON.stringify({
      error: {
        code: 400,
        message: 'the request exceeds the available context size (key sk-secret-value), try increasing it',
        type: 'exceed_context_size_error',
      },
    });
    let caught: { code: string; message: string; details: Record<string, unknown> } | undefined;
    try {
      assembler.accept(payload);
    } catch (error) {
      caught = error as typeof caught;
    }
    expect(caught?.code).toBe('LLM_BAD_RESPONSE');
    expect(caught?.message).toContain('the request exceeds the available context size');
    expect(caught?.message).not.toContain('sk-secret-value');
    expect(caught?.message).toContain('num_ctx');
    expect(caught?.details.reason).toBe('context_exceeded');
  });
});

describe('reasoning', () => {
  it('takes <think> blocks out of the content, split anywhere, and joins them with reasoning_content', () => {
    const response = assemble([
      chunk({ reasoning_content: 'Field thought.' }),
      chunk({ content: '<thi' }),
      chunk({ content: 'nk>Tag thought' }),
      chunk({ content: '.</th' }),
      chunk({ content: 'ink>\n\nThe answer.' }),
      chunk({}, 'stop'),
    ]);
    expect(response).toMatchObject({ content: 'The answer.', reasoning: 'Field thought.\n\nTag thought.' });
  });

  it('a lone </think> makes what came before it reasoning; an unclosed <think> makes the rest reasoning', () => {
    expect(
      assemble([chunk({ content: 'mulling' }), chunk({ content: ' it</think>Yes.' }), chunk({}, 'stop')]),
    ).toMatchObject({ content: 'Yes.', reasoning: 'mulling it' });
    expect(assemble([chunk({ content: '<think>still going' }), chunk({}, 'length')])).toMatchObject({
      content: '',
      reasoning: 'still going',
    });
  });
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
