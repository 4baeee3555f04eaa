/**
 * SWI's declarations as TEA's Prolog agents write them (src/prolog/swi-declarations.ts): the
 * `dynamic` operator with a comma sequence, the call form, lists; a declared predicate with no
 * clauses fails instead of raising; a bad indicator is a typed PROLOG_ERROR; `table` stays unknown.
 */
import { describe, expect, it } from 'vitest';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { runAgent } from '../../src/graph/run-agent.js';
import { ALL_SCRIPT_SANDBOXES } from '../../src/lua/lua-script-sandbox.js';
import { withPrologWhenUsed } from '../../src/prolog/load-prolog.js';

async function run(code: string, input: Record<string, unknown> = {}) {
  const yaml = `name: declarations\nnodes:\n  - name: reason\n    language: prolog\n    run: |\n${code
    .split('\n')
    .map((line) => `      ${line}`)
    .join('\n')}\n`;
  const agent = loadAgent(yaml, {
    file: 'agent.yaml',
    scripts: await withPrologWhenUsed(ALL_SCRIPT_SANDBOXES, [yaml]),
  });
  return runAgent(agent, input).result;
}

describe("SWI's dynamic/discontiguous/multifile declarations", () => {
  it('`:- dynamic a/2, b/2.` (operator, comma sequence): declared predicates fail when empty and take asserted facts', async () => {
    const result = await run(
      [
        ':- dynamic mother/2, father/2, affair/4.',
        ':- discontiguous parent/2.',
        'parent(X, Y) :- mother(X, Y).',
        'parent(X, Y) :- father(X, Y).',
        'state(child, C), assertz(mother(ann, C)).',
        'findall(P, parent(P, _), Ps), return(parents, Ps).',
        '( affair(_, _, _, _) -> return(affair, yes) ; return(affair, none) ).',
      ].join('\n'),
      { child: 'bob' },
    );
    expect(result).toMatchObject({ status: 'completed', state: { parents: ['ann'], affair: 'none' } });
  });

  it('the call form and a list are read too', async () => {
    const result = await run(
      [
        ':- dynamic(seen/1).',
        ':- dynamic([count/1, total/2]).',
        ':- multifile(hook/1).',
        '( seen(_) -> return(seen, yes) ; return(seen, no) ).',
        '\\+ total(_, _), return(total, none).',
      ].join('\n'),
    );
    expect(result).toMatchObject({ status: 'completed', state: { seen: 'no', total: 'none' } });
  });

  it('a bad indicator is PROLOG_ERROR with the Prolog error term; `table` is not pretended', async () => {
    const bad = await run(':- dynamic foo.');
    expect(bad.error).toMatchObject({ code: 'PROLOG_ERROR' });
    expect(bad.error?.message).toContain('type_error(predicate_indicator,foo)');
    // No tabling here: refused at load rather than run without it (it could loop until its budget).
    await expect(run(':- table fib/2.\nreturn(x, 1).')).rejects.toMatchObject({ code: 'PROLOG_SYNTAX' });
  });
});
