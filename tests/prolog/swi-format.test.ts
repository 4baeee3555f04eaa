/**
 * SWI's format/2,3 (src/prolog/swi-format.ts) as TEA's Prolog agents use it: sinks, directives,
 * column stops, SWI's format errors (catchable), the atomLength budget before the text is built,
 * and printed output as a `log` event whose source is `prolog`.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { runAgent } from '../../src/graph/run-agent.js';
import { ALL_SCRIPT_SANDBOXES } from '../../src/lua/lua-script-sandbox.js';
import { withPrologWhenUsed } from '../../src/prolog/load-prolog.js';
import { compilePrologChunk } from '../../src/prolog/compile-prolog.js';

const returns = (code: string) => compilePrologChunk(code).solve({}).returns;

describe('format/2,3', () => {
  it('writes into atom/codes/chars sinks with SWI directives', () => {
    expect(
      returns(
        [
          `format(atom(A), "~w is over ~d by ~2f (~a, ~q)", [load, 10, 1.5, x, 'It''s']), return(a, A).`,
          'format(atom(B), "~D items, ~2d euros, ~8r, ~16R, ~c~c, ~e", [1234567, 1999, 64, 255, 104, 105, 12.5]), return(b, B).',
          'format(atom(C), "~w~t~10|~w", [ab, cd]), return(c, C).',
          'format(atom(D), "~t~w~10|", [right]), return(d, D).',
          'format(atom(E), "~`-t~30|", []), return(e, E).',
          'format(codes(F), "ok", []), atom_codes(G, F), return(f, G).',
          'format(atom(H), "~w", single), return(h, H).',
          'format(atom(I), "~s and ~i~w", [[104, 105], skipped, kept]), return(i, I).',
          'format(atom(J), "~*c|~a", [3, 0\'x, end]), return(j, J).',
        ].join('\n'),
      ),
    ).toEqual({
      a: "load is over 10 by 1.50 (x, 'It\\'s')",
      b: '1,234,567 items, 19.99 euros, 100, FF, hi, 1.250000e+1',
      c: 'ab        cd',
      d: '     right',
      e: '-'.repeat(30),
      f: 'ok',
      h: 'single',
      i: 'hi and kept',
      j: 'xxx|end',
    });
  });

  it("argument and directive mistakes are SWI's error(format(Message), _), catchable", () => {
    const caught = (goal: string) => returns(`catch(${goal}, error(format(M), _), true), return(m, M).`).m;
    expect(caught('format(atom(_), "~w ~w", [one])')).toBe('not enough arguments');
    expect(caught('format(atom(_), "~w", [one, two])')).toBe('too many arguments');
    expect(caught('format(atom(_), "~y", [one])')).toBe('unknown directive ~y');
    expect(caught('format(atom(_), "~d", [1.5])')).toBe('~d expects an integer argument');
  });

  it('a huge repeat is a budget stop before the text is built', () => {
    const chunk = compilePrologChunk('format(atom(A), "~100000000c", [65]), return(a, A).');
    expect(() => chunk.solve({})).toThrow(
      expect.objectContaining({ code: 'PROLOG_BUDGET', details: expect.objectContaining({ budget: 'atomLength' }) }),
    );
  });

  it('format/2 prints: a log event with source prolog', async () => {
    const yaml =
      'name: printer\nnodes:\n  - name: say\n    language: prolog\n    run: |\n      format("hello ~w~n", [world]).\n';
    const agent = loadAgent(yaml, {
      file: 'printer.yaml',
      scripts: await withPrologWhenUsed(ALL_SCRIPT_SANDBOXES, [yaml]),
    });
    const run = runAgent(agent, {});
    const events: AgentEvent[] = [];
    for await (const event of run) events.push(event);
    expect(events.filter((event) => event.type === 'log').map((event) => event.data)).toEqual([
      { source: 'prolog', message: 'hello world' },
    ]);
  });
});

describe("SWI's text predicates (src/prolog/swi-text.ts)", () => {
  it('atom_string, term_to_atom, term_string and the renamed string predicates', () => {
    expect(
      returns(
        [
          'atom_string(abc, S1), atom_string(A1, "def"), atom_string(42, S2), return(r1, [S1, A1, S2]).',
          "term_to_atom(f(X, 'a b', [1]), T), return(r2, T).",
          "term_to_atom(T2, 'g(Y, Y, z)'), T2 = g(1, W, Z), return(r3, [W, Z]).",
          'term_string(T3, "h(2)"), arg(1, T3, N), return(r4, N).',
          'sumlist([1, 2, 3.5], Sum), string_concat(ab, cd, C), string_length(hello, L), string_upper(abc, U), number_string(Num, "12"), return(r5, [Sum, C, L, U, Num]).',
        ].join('\n'),
      ),
    ).toEqual({
      r1: ['abc', 'def', '42'],
      r2: expect.stringMatching(/^f\(_?\w+,'a b',\[1\]\)$/),
      r3: [1, 'z'],
      r4: 2,
      r5: [6.5, 'abcd', 5, 'ABC', 12],
    });
  });

  it('bad input is a Prolog error: unbound both ways, an unreadable atom', () => {
    const caught = (goal: string) => returns(`catch(${goal}, error(E, _), true), return(e, E).`).e;
    expect(caught('atom_string(_, _)')).toBe('instantiation_error');
    expect(caught("term_to_atom(_, 'f(')")).toMatch(/^syntax_error\(/);
    expect(caught('number_string(_, "12abc")')).toBe('syntax_error(illegal_number)');
  });
});
