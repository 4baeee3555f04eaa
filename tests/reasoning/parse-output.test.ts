/** Table tests of the shared output parser over malformed outputs typical of small local models. */
import { describe, expect, it } from 'vitest';
import { parseModelOutput } from '../../src/reasoning/parse-output.js';
import { repairJson } from '../../src/reasoning/json-repair.js';
import { parseJsonSafely } from '../../src/util/untrusted-json.js';

const FENCE = '```';

/** [name, model text, expected value] — each must parse to exactly that value. */
const PARSEABLE: Array<[string, string, unknown]> = [
  ['plain object', '{"thinking": "a", "answer": "b"}', { thinking: 'a', answer: 'b' }],
  ['object with surrounding whitespace', '\n\n  {"answer": 1}  \n', { answer: 1 }],
  ['bare number', '42', 42],
  ['bare array', '[1, 2, 3]', [1, 2, 3]],
  [
    'json fence',
    `${FENCE}json\n{"thinking": "Step by step", "answer": "result"}\n${FENCE}`,
    { thinking: 'Step by step', answer: 'result' },
  ],
  ['bare fence', `${FENCE}\n{"answer": "x"}\n${FENCE}`, { answer: 'x' }],
  [
    'fence with prose before and after',
    `Here is my answer:\n${FENCE}json\n{"answer": 7}\n${FENCE}\nHope this helps!`,
    { answer: 7 },
  ],
  ['fence on one line', `${FENCE}json {"answer": "inline"} ${FENCE}`, { answer: 'inline' }],
  ['uppercase JSON fence tag', `${FENCE}JSON\n{"a": 1}\n${FENCE}`, { a: 1 }],
  ['tilde fence', '~~~json\n{"a": 2}\n~~~', { a: 2 }],
  ['second fence is the JSON one', `${FENCE}python\nprint(1)\n${FENCE}\n${FENCE}json\n{"a": 3}\n${FENCE}`, { a: 3 }],
  [
    'nested fence inside a JSON string',
    `${FENCE}json\n{"code": "use ${FENCE}js\\nx\\n${FENCE} here", "answer": 1}\n${FENCE}`,
    { code: `use ${FENCE}js\nx\n${FENCE} here`, answer: 1 },
  ],
  ['fence never closed (cut output)', `${FENCE}json\n{"answer": "cut"}`, { answer: 'cut' }],
  ['prose before object', 'Sure! Here is the JSON you asked for: {"answer": "Paris"}', { answer: 'Paris' }],
  ['prose after object', '{"answer": "Paris"}\nLet me know if you need anything else.', { answer: 'Paris' }],
  [
    'prose on both sides',
    'Okay.\n{"thought": "t", "action": "final_answer"}\nDone.',
    { thought: 't', action: 'final_answer' },
  ],
  ['two JSON objects: the first wins', '{"action": "a"}\n{"action": "b"}', { action: 'a' }],
  ['an unclosed brace before the object', 'I think { the answer is {"a": 1}', { a: 1 }],
  ['braces in prose before the object', 'Using the set {x, y} we get {"answer": 2}', { answer: 2 }],
  ['braces inside strings', 'Result: {"answer": "a } b { c"}', { answer: 'a } b { c' }],
  ['thinking tag then number', '<thinking>Step 1: add. Step 2: done.</thinking>\n42', 42],
  ['thinking tag then text', '<thinking>Consider it.</thinking>\nThe capital is Paris.', 'The capital is Paris.'],
  ['thinking tag then JSON', '<thinking>hmm</thinking> {"answer": "x"}', { answer: 'x' }],
  ['thinking tag then "Answer:" label', '<thinking>hmm</thinking>\nAnswer: 12', 12],
  [
    'think tag of a reasoning model before JSON',
    '<think>\nThe user wants {json}. Let me answer.\n</think>\n{"answer": 5}',
    { answer: 5 },
  ],
  ['lone closing think tag', 'I should say {maybe}.\n</think>\n{"answer": 6}', { answer: 6 }],
  ['think tag then fenced JSON', `<think>ok</think>\n${FENCE}json\n{"answer": 8}\n${FENCE}`, { answer: 8 }],
  ['trailing comma in object', '{"a": 1, "b": 2,}', { a: 1, b: 2 }],
  ['trailing comma in array', '{"items": [1, 2, 3,]}', { items: [1, 2, 3] }],
  ['single quotes', "{'thought': 'calc', 'action': 'math.calculate'}", { thought: 'calc', action: 'math.calculate' }],
  ['single quotes with an apostrophe escaped', "{'answer': 'it\\'s fine'}", { answer: "it's fine" }],
  ['double quote inside single-quoted string', `{'answer': 'say "hi"'}`, { answer: 'say "hi"' }],
  ['Python literals', "{'valid': True, 'done': False, 'value': None}", { valid: true, done: false, value: null }],
  ['unquoted keys', '{thought: "x", action: "final_answer"}', { thought: 'x', action: 'final_answer' }],
  ['unterminated string at the end', '{"thought": "I know", "answer": "Par', { thought: 'I know', answer: 'Par' }],
  [
    'unterminated nested object at the end',
    '{"action": "final_answer", "action_input": {"answer": 4',
    { action: 'final_answer', action_input: { answer: 4 } },
  ],
  ['dangling key at the end', '{"answer": 1, "note":', { answer: 1 }],
  [
    'raw newline inside a string',
    '{"thinking": "line one\nline two", "answer": 3}',
    { thinking: 'line one\nline two', answer: 3 },
  ],
  ['markdown list before JSON', '- Step 1: read\n- Step 2: compute\n\n{"answer": 9}', { answer: 9 }],
  ['markdown bold then JSON', '**Answer:**\n{"answer": "bold"}', { answer: 'bold' }],
  ['exponent numbers survive repair', "{'value': 1e3, 'neg': -2.5E-1,}", { value: 1000, neg: -0.25 }],
  ['comment line inside repaired JSON', '{"a": 1, // the count\n "b": 2,}', { a: 1, b: 2 }],
  ['unicode preserved', '{"answer": "Café ☕"}', { answer: 'Café ☕' }],
  ['repair after prose', "The result is {'answer': 10,} as computed", { answer: 10 }],
  [
    'forbidden keys dropped',
    '{"__proto__": {"polluted": true}, "constructor": 1, "prototype": 2, "answer": 1}',
    { answer: 1 },
  ],
  ['forbidden keys dropped when nested', '{"a": {"__proto__": {"x": 1}, "b": 2}}', { a: { b: 2 } }],
];

/** [name, model text] — each must fail with the raw text in the error. */
const UNPARSEABLE: Array<[string, string]> = [
  ['plain prose', 'This is not valid JSON'],
  ['markdown list only', '- First, compute 2+2\n- Then answer 4'],
  ['braces that are not JSON', 'The set {a, b} has two elements and {c} has one'],
  ['open brace with prose only', 'I think { the answer is probably four'],
];

describe('parseModelOutput: parseable outputs', () => {
  it.each(PARSEABLE)('%s', (_name, text, expected) => {
    const outcome = parseModelOutput(text);
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    if (outcome.ok) expect(outcome.value).toEqual(expected);
  });

  it('reports the method of each rule in the chain', () => {
    const methods = [
      parseModelOutput('{"a": 1}'),
      parseModelOutput(`${FENCE}\n{"a": 1}\n${FENCE}`),
      parseModelOutput('<thinking>x</thinking> 1'),
      parseModelOutput('text {"a": 1} text'),
      parseModelOutput("{'a': 1}"),
    ].map((outcome) => (outcome.ok ? outcome.method : 'failed'));
    expect(methods).toEqual(['json', 'fence', 'thinking', 'balanced', 'repair']);
  });

  it('returns the thinking text of <thinking> and <think> blocks', () => {
    const tagged = parseModelOutput('<thinking>Step 1: add</thinking>\n42');
    expect(tagged.ok && tagged.thinking).toBe('Step 1: add');
    const reasoning = parseModelOutput('<think>pondering</think>{"answer": 1}');
    expect(reasoning.ok && reasoning.thinking).toBe('pondering');
  });

  it('a forbidden key never reaches a prototype', () => {
    const outcome = parseModelOutput('{"__proto__": {"isAdmin": true}}');
    expect(outcome.ok).toBe(true);
    const merged = { ...(outcome.ok ? (outcome.value as object) : {}) } as Record<string, unknown>;
    expect(merged['isAdmin']).toBeUndefined();
    expect(({} as Record<string, unknown>)['isAdmin']).toBeUndefined();
  });
});

describe('parseModelOutput: failures', () => {
  it.each(UNPARSEABLE)('%s', (_name, text) => {
    const outcome = parseModelOutput(text);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error).toContain('Raw output');
      expect(outcome.error).toContain(text.slice(0, 20));
    }
  });

  it.each([[''], ['   '], ['\n\t\n']])('empty text %j → "Empty response from LLM"', (text) => {
    const outcome = parseModelOutput(text);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toBe('Empty response from LLM');
  });

  it('the error carries at most 500 characters of the raw output, the cut marked', () => {
    const text = 'x'.repeat(2000);
    const outcome = parseModelOutput(text);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error).toContain(`${'x'.repeat(480)}…[+`);
      expect(outcome.error).not.toContain('x'.repeat(501));
    }
  });

  it('refuses JSON nested deeper than the cap without a stack overflow', () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const outcome = parseModelOutput(deep);
    expect(outcome.ok).toBe(false);
    expect(parseJsonSafely(deep).ok).toBe(false);
  });

  it('refuses a text over the size cap', () => {
    const outcome = parseModelOutput('{"a": "' + 'y'.repeat(600_000) + '"}');
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toContain('too large');
  });

  it('a brace-heavy text stays cheap and fails cleanly (depth cap after repair)', () => {
    const outcome = parseModelOutput('{ '.repeat(5000));
    expect(outcome.ok).toBe(false);
  });
});

describe('repairJson', () => {
  it('closes open strings and brackets', () => {
    expect(repairJson('{"a": ["x", "y')).toBe('{"a": ["x", "y"]}');
  });
  it('returns undefined when there is no bracket', () => {
    expect(repairJson('no json here')).toBeUndefined();
  });
  it('ignores text after the value closes', () => {
    expect(repairJson("{'a': 1} and then {'b': 2}")).toBe('{"a": 1}');
  });
});

describe('pathological model output stays linear (completes; would time out if quadratic)', () => {
  it.each([
    ['backticks', '`'.repeat(400_000)],
    ['unclosed thinking tags', '<thinking>'.repeat(40_000)],
    ['unclosed think tags', '<think> '.repeat(50_000)],
    ['newlines between letters', 'x' + '\n'.repeat(400_000) + 'y'],
    ['open braces and quotes', '{"'.repeat(200_000)],
    ['many closed thinking blocks', '<thinking>a</thinking>'.repeat(20_000)],
    ['fences without JSON', '```\nnot json\n```\n'.repeat(20_000)],
  ])('%s', (_name, text) => {
    const outcome = parseModelOutput(text);
    expect(typeof outcome.ok).toBe('boolean');
  });

  it('text forms of ReAct with many newlines are parsed without backtracking blow-up', async () => {
    const { decideFromJson } = await import('../../src/reasoning/react/react-decision.js');
    expect(decideFromJson('a' + '\n \t'.repeat(100_000) + 'b', 1).kind).toBe('parse_error');
  });

  it("ReAct takes a reasoning model's thinking (the response's reasoning) as the thought when the JSON gives none", async () => {
    const { decideFromJson, decideFromNative } = await import('../../src/reasoning/react/react-decision.js');
    expect(
      decideFromJson('{"action": "final_answer", "action_input": "36"}', 1, 'I computed 0.15 x 240.'),
    ).toMatchObject({ kind: 'final', thought: 'I computed 0.15 x 240.' });
    expect(
      decideFromJson('{"thought": "own", "action": "final_answer", "action_input": "36"}', 1, 'ignored'),
    ).toMatchObject({ thought: 'own' });
    const native = decideFromNative(
      {
        content: '',
        reasoning: 'Look it up.',
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        model: 'm',
        finish_reason: 'tool_calls',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'web_search', arguments: '{}' } }],
      },
      1,
    );
    expect(native).toMatchObject({ kind: 'tools', thought: 'Look it up.' });
  });
});
