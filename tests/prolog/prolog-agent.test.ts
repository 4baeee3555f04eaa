/**
 * Prolog through loadAgent and the CLI: syntax errors at load with file:line, a host without the
 * Prolog sandbox, prolog.query's refusal of templates, the Prolog reflection evaluator (the
 * candidate passes when the rules hold), and `tea-edge run` on an example.
 */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/core/agent-error.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { runAgent } from '../../src/graph/run-agent.js';
import { ALL_SCRIPT_SANDBOXES } from '../../src/lua/lua-script-sandbox.js';
import { withPrologWhenUsed } from '../../src/prolog/load-prolog.js';
import { runCli } from '../support/run-cli.js';

async function load(yaml: string) {
  return loadAgent(yaml, { file: 'agent.yaml', scripts: await withPrologWhenUsed(ALL_SCRIPT_SANDBOXES, [yaml]) });
}

async function loadError(yaml: string): Promise<AgentError> {
  try {
    await load(yaml);
  } catch (error) {
    if (AgentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a load error');
}

describe('Prolog agents', () => {
  it('reports a syntax error at load with the file line, before anything runs', async () => {
    const error = await loadError(
      'nodes:\n  - name: rules\n    language: prolog\n    run: |\n      ok(1).\n      broken( :- .\n',
    );
    expect(error.code).toBe('PROLOG_SYNTAX');
    expect(error.location).toMatchObject({ file: 'agent.yaml', line: 6, node: 'rules' });
    expect(error.details.errors).toEqual([
      expect.objectContaining({ code: 'PROLOG_SYNTAX', file: 'agent.yaml', line: 6, node: 'rules' }),
    ]);
  });

  it('a host without the Prolog sandbox refuses Prolog with SCRIPT_ENGINE_NOT_LOADED naming the language', () => {
    try {
      loadAgent('nodes:\n  - name: a\n    language: prolog\n    run: "x(1)."\n', {
        file: 'agent.yaml',
        scripts: ALL_SCRIPT_SANDBOXES,
      });
      expect.unreachable();
    } catch (error) {
      expect((error as AgentError).code).toBe('SCRIPT_ENGINE_NOT_LOADED');
      expect((error as AgentError).location.node).toBe('a');
      expect((error as AgentError).message).toContain('no prolog sandbox');
    }
  });

  it('auto-detects Prolog in a run: with no language, as TEA does', async () => {
    const agent = await load(
      'initial_state: { n: 4 }\nnodes:\n  - name: a\n    run: |\n      sq(X, Y) :- Y is X * X.\n      state(n, N), sq(N, S), return(square, S).\n',
    );
    const run = runAgent(agent, {});
    for await (const _event of run);
    expect((await run.result).state.square).toBe(16);
  });

  it('prolog.query refuses a template in its code (state goes through state/2, never into the source)', async () => {
    const error = await loadError(
      'nodes:\n  - name: q\n    uses: prolog.query\n    with:\n      code: "member(X, {{ state.items }})"\n',
    );
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.location.field).toBe('code');
  });

  it('prolog.query answers {success, bindings} and a failing query is success false, not an error', async () => {
    const agent = await load(`initial_state: { from: a }
nodes:
  - name: reach
    uses: prolog.query
    with:
      facts: |
        edge(a, b). edge(b, c).
        path(X, Y) :- edge(X, Y).
        path(X, Y) :- edge(X, Z), path(Z, Y)
      code: "state(from, F), findall(Y, path(F, Y), Ys)"
    output: reach
  - name: none
    uses: prolog.query
    with:
      code: "member(z, [a, b])"
    output: none
`);
    const run = runAgent(agent, {});
    for await (const _event of run);
    const result = await run.result;
    expect(result.status).toBe('completed');
    expect(result.state.reach).toEqual({ success: true, bindings: [{ F: 'a', Ys: ['b', 'c'] }] });
    expect(result.state.none).toEqual({ success: false, bindings: [] });
  });

  it('a Prolog reflection evaluator passes the candidate only when the rules hold', async () => {
    const agent = await load(`settings:
  llm:
    provider: scripted
    scripted:
      - '{"tags": ["tea", "Tea"]}'
      - '{"tags": ["tea", "health", "morning"]}'
nodes:
  - name: tag
    uses: reflection.loop
    with:
      generator:
        action: llm.call
        prompt: "Tags as JSON"
        response_format: { type: json_object }
      evaluator:
        type: custom
        language: prolog
        run: |
          state(output, json(O)), member(tags=Tags, O),
          length(Tags, N), N >= 3,
          sort(Tags, Unique), length(Unique, N).
      max_iterations: 3
    output: tagging
`);
    const run = runAgent(agent, {});
    for await (const _event of run);
    const result = await run.result;
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.state.tagging).toMatchObject({
      valid: true,
      iterations: 2,
      output: { tags: ['tea', 'health', 'morning'] },
    });
  });

  it('tea-edge run runs a Prolog example (Prolog loaded because the agent uses it)', async () => {
    const outcome = await runCli(['run', 'examples/prolog-family-reasoning.yaml']);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(JSON.parse(outcome.stdout)).toMatchObject({
      descendants_of_tom: ['bob', 'ann', 'liz', 'joe'],
      grandparents_of_joe: ['bob'],
    });
  });
});
