import { describe, expect, it } from 'vitest';
import { createSseParser, type SseEvent } from './sse-parser.js';

const encoder = new TextEncoder();

/** Feeds `bytes` cut at the given offsets and returns every event. */
function parseSplit(bytes: Uint8Array, cuts: number[]): SseEvent[] {
  const parser = createSseParser();
  const events: SseEvent[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    events.push(...parser.push(bytes.subarray(start, cut)));
    start = cut;
  }
  events.push(...parser.finish());
  return events;
}

const cases: { name: string; stream: string; expected: Partial<SseEvent>[] }[] = [
  { name: 'LF lines', stream: 'data: one\n\ndata: two\n\n', expected: [{ data: 'one' }, { data: 'two' }] },
  { name: 'CRLF lines', stream: 'data: one\r\n\r\ndata: two\r\n\r\n', expected: [{ data: 'one' }, { data: 'two' }] },
  { name: 'lone CR lines', stream: 'data: one\r\rdata: two\r\r', expected: [{ data: 'one' }, { data: 'two' }] },
  {
    name: 'comments and keep-alives',
    stream: ': keep-alive\n\n:ping\ndata: x\n\n: bye\n\n',
    expected: [{ data: 'x' }],
  },
  { name: 'multi-line data joined by LF', stream: 'data: a\ndata: b\ndata:c\n\n', expected: [{ data: 'a\nb\nc' }] },
  { name: 'only one leading space removed', stream: 'data:  two spaces\n\n', expected: [{ data: ' two spaces' }] },
  {
    name: 'event names and ids',
    stream: 'event: ping\nid: 7\ndata: {}\n\ndata: after\n\n',
    expected: [
      { event: 'ping', data: '{}', id: '7' },
      { event: 'message', data: 'after', id: '7' },
    ],
  },
  { name: 'empty data line', stream: 'data\n\n', expected: [{ data: '' }] },
  {
    name: 'event without data is not dispatched',
    stream: 'event: x\n\ndata: y\n\n',
    expected: [{ event: 'message', data: 'y' }],
  },
  {
    name: 'UTF-8 multi-byte characters',
    stream: 'data: héllo wörld 🫖 中文\n\n',
    expected: [{ data: 'héllo wörld 🫖 中文' }],
  },
  {
    name: 'last event without blank line',
    stream: 'data: first\n\ndata: [DONE]',
    expected: [{ data: 'first' }, { data: '[DONE]' }],
  },
  { name: 'retry and unknown fields ignored', stream: 'retry: 100\nfoo: bar\ndata: z\n\n', expected: [{ data: 'z' }] },
  {
    name: 'OpenAI-style stream',
    stream:
      'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\ndata: {"choices":[],"usage":{"total_tokens":3}}\n\ndata: [DONE]\n\n',
    expected: [
      { data: '{"choices":[{"delta":{"content":"Hi"}}]}' },
      { data: '{"choices":[],"usage":{"total_tokens":3}}' },
      { data: '[DONE]' },
    ],
  },
];

describe('createSseParser', () => {
  for (const testCase of cases) {
    it(`${testCase.name}: same events whole, and cut at every byte`, () => {
      const bytes = encoder.encode(testCase.stream);
      const whole = parseSplit(bytes, []);
      expect(whole).toHaveLength(testCase.expected.length);
      whole.forEach((event, index) => {
        expect(event).toMatchObject(testCase.expected[index]!);
      });
      for (let cut = 1; cut < bytes.length; cut++) expect(parseSplit(bytes, [cut])).toEqual(whole);
      const everyByte = Array.from({ length: bytes.length - 1 }, (_, index) => index + 1);
      expect(parseSplit(bytes, everyByte)).toEqual(whole);
    });
  }

  it('a CR at the end of one chunk and LF at the start of the next is one line break', () => {
    const parser = createSseParser();
    expect(parser.push('data: a\r')).toEqual([]);
    expect(parser.push('\n\r')).toEqual([{ event: 'message', data: 'a' }]);
    expect(parser.push('\ndata: b\r\n\r\n')).toEqual([{ event: 'message', data: 'b' }]);
  });

  it('keeps a partial UTF-8 character until its last byte arrives', () => {
    const bytes = encoder.encode('data: 🫖\n\n');
    const parser = createSseParser();
    const teapotStart = 6;
    expect(parser.push(bytes.subarray(0, teapotStart + 2))).toEqual([]);
    expect(parser.push(bytes.subarray(teapotStart + 2))).toEqual([{ event: 'message', data: '🫖' }]);
  });

  it('accepts decoded text as well as bytes', () => {
    const parser = createSseParser();
    expect(parser.push('data: x\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ event: 'message', data: 'x' }]);
    expect(parser.finish()).toEqual([]);
  });
});
