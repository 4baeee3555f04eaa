/**
 * Property-style test of the output parser: random JSON objects (seeded, reproducible), written
 * the ways small models write them — prose around, fences, think blocks, trailing commas, single
 * quotes, Python literals — must parse back to exactly the object.
 */
import { describe, expect, it } from 'vitest';
import { parseModelOutput } from '../../src/reasoning/parse-output.js';
import { seededRandom as random } from '../support/seeded-random.js';

const WORDS = [
  'alpha',
  'beta',
  'answer',
  'thought',
  'tea',
  'café',
  'naïve',
  'x y z',
  'line\nbreak',
  'tab\there',
  'brace {',
  'close }',
  'colon: yes',
];

function randomValue(next: () => number, depth: number): unknown {
  const kind = Math.floor(next() * (depth > 2 ? 4 : 6));
  if (kind === 0) return WORDS[Math.floor(next() * WORDS.length)]!;
  if (kind === 1) return Math.round(next() * 10_000) / 100;
  if (kind === 2) return next() < 0.5;
  if (kind === 3) return null;
  if (kind === 4) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  return randomObject(next, depth + 1);
}

function randomObject(next: () => number, depth = 0): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  const size = 1 + Math.floor(next() * 4);
  for (let index = 0; index < size; index++) object[`key_${Math.floor(next() * 50)}`] = randomValue(next, depth);
  return object;
}

const PROSE_BEFORE = [
  '',
  'Sure! Here is the JSON:\n',
  'Okay, let me think.\n\n',
  '**Result:**\n',
  '- Step 1: done\n- Step 2: done\n\n',
];
const PROSE_AFTER = ['', '\nHope this helps!', '\n\nLet me know if you need more.', '\n- note: approximate'];

type Writer = (json: string, value: Record<string, unknown>) => string | undefined;

const WRITERS: Array<[string, Writer]> = [
  ['plain', (json) => json],
  ['pretty', (_json, value) => JSON.stringify(value, null, 2)],
  ['json fence', (json) => '```json\n' + json + '\n```'],
  ['bare fence', (json) => '```\n' + json + '\n```'],
  ['think block first', (json) => `<think>Reasoning about {things}.</think>\n${json}`],
  ['trailing comma', (json) => json.replace(/\}$/, ',}')],
  // Single quotes and Python literals only where no string could be damaged by the rewrite.
  ['single quotes', (json) => (/[\\']/.test(json) ? undefined : json.replace(/"/g, "'"))],
  [
    'python literals',
    (json) =>
      /"[^"]*(true|false|null)[^"]*"/.test(json)
        ? undefined
        : json
            .replace(/\btrue\b/g, 'True')
            .replace(/\bfalse\b/g, 'False')
            .replace(/\bnull\b/g, 'None'),
  ],
];

describe('parseModelOutput over 400 random objects written the ways small models write them', () => {
  const next = random(20261122);
  const cases: Array<[string, string, Record<string, unknown>]> = [];
  for (let index = 0; cases.length < 400; index++) {
    const value = randomObject(next);
    const [writerName, writer] = WRITERS[index % WRITERS.length]!;
    const body = writer(JSON.stringify(value), value);
    if (body === undefined) continue;
    const before = PROSE_BEFORE[Math.floor(next() * PROSE_BEFORE.length)]!;
    const after = PROSE_AFTER[Math.floor(next() * PROSE_AFTER.length)]!;
    cases.push([`#${cases.length} ${writerName}`, before + body + after, value]);
  }

  it.each(cases)('%s', (_name, text, value) => {
    const outcome = parseModelOutput(text);
    expect(outcome.ok, JSON.stringify({ text, outcome })).toBe(true);
    if (outcome.ok) expect(outcome.value).toEqual(value);
  });
});
