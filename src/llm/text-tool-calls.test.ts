import { describe, expect, it } from 'vitest';
import { knownServer, nativeToolCallsAdvice, toolCallsFromText } from './text-tool-calls.js';

const TOOLS = ['get_weather', 'calc_add'];
const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: JSON.stringify(args) });
const calls = (content: string) => {
  const found = toolCallsFromText(content, TOOLS);
  if (found?.kind !== 'calls') throw new Error(`no calls in ${JSON.stringify(content)}: ${JSON.stringify(found)}`);
  return { format: found.format, text: found.text, calls: found.calls.map((item) => item.function) };
};

describe('tool calls written as text', () => {
  it('reads Hermes / Qwen <tool_call> blocks, one or several, with or without the closing tag', () => {
    // Qwen 2.5 through vLLM without --enable-auto-tool-choice (the hermes parser's input form).
    expect(calls('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>')).toEqual({
      format: 'hermes',
      text: '',
      calls: [call('get_weather', { city: 'Paris' })],
    });
    expect(
      calls(
        'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "calc_add", "arguments": {"a": 1, "b": 2}}\n</tool_call>',
      ),
    ).toEqual({
      format: 'hermes',
      text: 'Let me check.',
      calls: [call('get_weather', { city: 'Paris' }), call('calc_add', { a: 1, b: 2 })],
    });
    // A stream cut at max_tokens right after the JSON, and arguments given as a JSON string.
    expect(calls('<tool_call>\n{"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\"}"}').calls).toEqual([
      call('get_weather', { city: 'Oslo' }),
    ]);
  });

  it("reads Qwen3-Coder XML calls, with values typed by the tool's own parameter schema", () => {
    const offered = new Map([
      ['get_weather', { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } }],
      ['calc_add', {}],
    ]);
    const found = toolCallsFromText(
      '<tool_call>\n<function=get_weather>\n<parameter=city>\n1984\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>',
      offered,
    );
    expect(found).toMatchObject({
      kind: 'calls',
      format: 'qwen3-xml',
      text: '',
      calls: [{ function: call('get_weather', { city: '1984', days: 3 }) }],
    });
    expect(
      calls(
        '<tool_call>\n<function=calc_add>\n<parameter=a>\n2\n</parameter>\n<parameter=note>\ntwo words\n</parameter>\n</function>\n</tool_call>',
      ).calls,
    ).toEqual([call('calc_add', { a: 2, note: 'two words' })]);
  });

  it('reads LM Studio [TOOL_REQUEST] blocks it left unparsed', () => {
    expect(calls('[TOOL_REQUEST]\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n[END_TOOL_REQUEST]')).toEqual(
      { format: 'lmstudio', text: '', calls: [call('get_weather', { city: 'Oslo' })] },
    );
    expect(
      toolCallsFromText('[TOOL_REQUEST]{"name": "get_weather", "arguments": {"city": [END_TOOL_REQUEST]', TOOLS),
    ).toEqual({ kind: 'unrecognised', marker: '[TOOL_REQUEST]' });
  });

  it('reads Llama 3.1 <|python_tag|> calls joined by ";" and Llama 3.2 bare JSON calls', () => {
    expect(
      calls(
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "calc_add", "parameters": {"a": 1, "b": 2}}<|eom_id|>',
      ),
    ).toEqual({
      format: 'llama-python-tag',
      text: '',
      calls: [call('get_weather', { city: 'Paris' }), call('calc_add', { a: 1, b: 2 })],
    });
    expect(calls('{"name": "get_weather", "parameters": {"city": "Paris"}}')).toEqual({
      format: 'json',
      text: '',
      calls: [call('get_weather', { city: 'Paris' })],
    });
    expect(
      calls('```json\n[{"type": "function", "name": "calc_add", "parameters": {"a": 2, "b": 3}}]\n```').calls,
    ).toEqual([call('calc_add', { a: 2, b: 3 })]);
    expect(calls('<function=get_weather>{"city": "Rome"}</function>')).toEqual({
      format: 'llama-function',
      text: '',
      calls: [call('get_weather', { city: 'Rome' })],
    });
  });

  it('reads Mistral [TOOL_CALLS] in the v3 (JSON list) and v11 (name[ARGS]) forms', () => {
    expect(calls('[TOOL_CALLS] [{"name": "calc_add", "arguments": {"a": 3.5, "b": 4}}]</s>')).toEqual({
      format: 'mistral',
      text: '',
      calls: [call('calc_add', { a: 3.5, b: 4 })],
    });
    expect(
      calls('[TOOL_CALLS]get_weather[ARGS]{"city": "Lyon"}[TOOL_CALLS]calc_add[ARGS]{"a": 1, "b": 1}').calls,
    ).toEqual([call('get_weather', { city: 'Lyon' }), call('calc_add', { a: 1, b: 1 })]);
  });

  it('leaves answers alone, even ones that mention tools or hold JSON with a name', () => {
    for (const answer of [
      'The weather in Paris is sunny.',
      'I would call get_weather(city) for that, but it is not needed: 2 + 2 = 4.',
      '{"name": "Ada Lovelace", "born": 1815}',
      '{"name": "get_weather", "summary": "a tool I have"}',
      '{"name": "unknown_tool", "parameters": {}}',
      '[]',
      '',
    ]) {
      expect(toolCallsFromText(answer, TOOLS), answer).toBeUndefined();
    }
  });

  it('says a reply is an unreadable call when it carries a marker or is a bare call expression', () => {
    expect(toolCallsFromText('<tool_call>get_weather city=Paris</tool_call>', TOOLS)).toEqual({
      kind: 'unrecognised',
      marker: '<tool_call>',
    });
    expect(toolCallsFromText('[get_weather(city="Paris")]', TOOLS)).toEqual({
      kind: 'unrecognised',
      marker: 'a function-call expression',
    });
    expect(
      toolCallsFromText('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather', TOOLS)?.kind,
    ).toBe('unrecognised');
    expect(toolCallsFromText('<|python_tag|>brave_search.call(query="x")', TOOLS)).toEqual({
      kind: 'unrecognised',
      marker: '<|python_tag|>',
    });
  });

  it("gives every call an id with the caller's prefix, and arguments as a JSON object text", () => {
    const found = toolCallsFromText(
      '<tool_call>{"name": "calc_add", "arguments": {"a": 1}}</tool_call><tool_call>{"name": "calc_add"}</tool_call>',
      TOOLS,
      'text_call_3',
    );
    expect(found).toMatchObject({
      kind: 'calls',
      calls: [
        { id: 'text_call_3_0', type: 'function' },
        { id: 'text_call_3_1', function: { arguments: '{}' } },
      ],
    });
  });

  it('names the server from the provider or the default port, with its switch for native tool calls', () => {
    expect(knownServer('llamacpp', undefined)).toBe('llamacpp');
    expect(knownServer(undefined, 'http://127.0.0.1:8000/v1')).toBe('vllm');
    expect(knownServer(undefined, 'http://gpu:9999/v1')).toBeUndefined();
    expect(nativeToolCallsAdvice('vllm')).toContain('--enable-auto-tool-choice');
    expect(nativeToolCallsAdvice('llamacpp')).toContain('--jinja');
    expect(nativeToolCallsAdvice(undefined)).toContain('--tool-call-parser');
  });
});
