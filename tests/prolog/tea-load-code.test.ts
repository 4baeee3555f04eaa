/**
 * tea_load_code/1 (src/prolog/tea-load-code.ts): TEA's neurosymbolic pattern, a model writes facts
 * and the chunk loads them. An agent of that shape runs against a mock model; a syntax error in
 * the model's text is a catchable Prolog error; a flood of facts meets the clause budget; the
 * loaded terms' variables are their own; host predicates cannot be modified.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { runAgent } from '../../src/graph/run-agent.js';
import { ALL_SCRIPT_SANDBOXES } from '../../src/lua/lua-script-sandbox.js';
import { withPrologWhenUsed } from '../../src/prolog/load-prolog.js';
import { compilePrologChunk } from '../../src/prolog/compile-prolog.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

async function run(code: string, input: Record<string, unknown> = {}, options: Parameters<typeof runAgent>[2] = {}) {
  const yaml = `name: loader\nnodes:\n  - name: reason\n    language: prolog\n    run: |\n${code
    .split('\n')
    .map((line) => `      ${line}`)
    .join('\n')}\n`;
  const agent = loadAgent(yaml, {
    file: 'agent.yaml',
    scripts: await withPrologWhenUsed(ALL_SCRIPT_SANDBOXES, [yaml]),
  });
  return runAgent(agent, input, options).result;
}

describe('tea_load_code/1', () => {
  it('asserts facts and rules, runs directives and queries, in order; variables are per term', async () => {
    const facts =
      ':- dynamic seen/1.\nparent(ann, bob).\nparent(bob, cid).\ngrand(X, Z) :- parent(X, Y), parent(Y, Z).\nassertz(seen(loaded)).';
    const result = await run(
      'state(facts, F), tea_load_code(F), findall(X-Z, grand(X, Z), G), seen(S), return(grand, G), return(seen, S).',
      { facts },
    );
    expect(result).toMatchObject({ status: 'completed', state: { grand: ['ann-cid'], seen: 'loaded' } });
  });

  it('a syntax error in the text is error(syntax_error(_), tea_load_code/1): catchable, and PROLOG_ERROR when not caught', async () => {
    const caught = await run(
      'state(facts, F), catch(tea_load_code(F), error(syntax_error(What), _), (return(problem, What))).',
      { facts: 'parent(ann, bob).\nparent(bob' },
    );
    expect(caught.status).toBe('completed');
    expect(String(caught.state.problem)).toMatch(/expected.* on line \d/);
    const uncaught = await run('state(facts, F), tea_load_code(F).', { facts: 'broken( :- .' });
    expect(uncaught.error).toMatchObject({ code: 'PROLOG_ERROR' });
    expect(uncaught.error?.message).toContain('syntax_error');
  });

  it('a model that writes a flood of facts meets the clause budget (PROLOG_BUDGET), not the host', () => {
    const flood = Array.from({ length: 2000 }, (_, index) => `f(${index}).`).join('\n');
    const chunk = compilePrologChunk(
      'state(facts, F), tea_load_code(F), findall(X, f(X), Xs), length(Xs, N), return(n, N).',
    );
    expect(chunk.solve({ state: { facts: flood } }).returns).toEqual({ n: 2000 });
    expect(() => chunk.solve({ state: { facts: flood } }, { budget: { clauses: 1000 } })).toThrow(
      expect.objectContaining({ code: 'PROLOG_BUDGET', details: expect.objectContaining({ budget: 'clauses' }) }),
    );
    // The next call starts clean: nothing the flood asserted is left.
    expect(
      compilePrologChunk(':- dynamic f/1.\nfindall(X, f(X), Xs), length(Xs, N), return(n, N).').solve({}).returns,
    ).toEqual({ n: 0 });
  });

  it('refuses a non-atom with a type error; host predicates cannot be asserted over or declared dynamic', async () => {
    expect((await run('tea_load_code(42).')).error?.message).toContain('type_error(atom,42)');
    for (const code of [
      'assertz(return(a, b)).',
      'retract(tea_load_code(_)).',
      ':- dynamic return/2.',
      'assertz((dynamic(x) :- true)).',
    ]) {
      const result = await run(code);
      expect({ code, error: result.error?.code }).toEqual({ code, error: 'PROLOG_ERROR' });
      expect(result.error?.message).toContain('permission_error(modify,static_procedure');
    }
  });
});

describe('the neurosymbolic pattern: a model writes facts, Prolog reasons (tests/prolog/agents/model-facts.yaml)', () => {
  let mock: MockOpenAI;
  beforeAll(async () => {
    mock = await startMockOpenAI({
      replies: [
        'Here they are.\n<facts>\nparent(ann, bob).\nparent(ann, cid).\nparent(bob, dan).\nparent(cid, eve).\nparent(cid, fay).\n</facts>',
      ],
    });
  });
  afterAll(async () => mock?.close());

  it('loads the facts the model wrote and derives the cousins', async () => {
    const yaml = await readFile(path.join(import.meta.dirname, 'agents/model-facts.yaml'), 'utf8');
    const agent = loadAgent(yaml, {
      file: 'model-facts.yaml',
      scripts: await withPrologWhenUsed(ALL_SCRIPT_SANDBOXES, [yaml]),
    });
    const result = await runAgent(
      agent,
      { text: 'Ann has two children, Bob and Cid. Bob has Dan; Cid has Eve and Fay.', person: 'dan' },
      { llm: { overrides: { api_base: mock.url, model: 'mock-model' } } },
    ).result;
    expect(result).toMatchObject({ status: 'completed', state: { cousins: ['eve', 'fay'] } });
  });
});
