/** Templates seen through the engine: `with:` values, `goto` rules, edge `when`, load and run errors. */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../core/agent-error.js';
import { createActionRegistry } from '../builtins.js';
import type { ActionDefinition } from '../core/action.js';
// Through the public entry, which stays stable while the engine's files move.
import { loadAgent, runAgent } from '../index.js';
import type { RunOptions } from '../graph/run-types.js';

/** An action that returns the parameters it received, so tests see rendered `with:` values. */
const echo: ActionDefinition = {
  name: 'test.echo',
  description: 'returns its parameters',
  run: async (params) => ({ echoed: params }),
};

async function run(yaml: string, input: Record<string, unknown> = {}, options: RunOptions = {}) {
  const agent = loadAgent(yaml, { file: 'agent.yaml', registry: createActionRegistry([echo]) });
  const handle = runAgent(agent, input, options);
  for await (const _event of handle) void _event;
  return handle.result;
}

function loadFailure(yaml: string): AgentError {
  try {
    loadAgent(yaml, { file: 'agent.yaml', registry: createActionRegistry([echo]) });
  } catch (error) {
    if (AgentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a load error');
}

describe('templates in agents', () => {
  it('with: renders native values, interpolations, defaults and blocks', async () => {
    const result = await run(
      `variables:
  max: 3
nodes:
  - name: call
    uses: test.echo
    with:
      items: "{{ state.items }}"
      count: "{{ state.items | length }}"
      limit: "{{ variables.max }}"
      greeting: "Hello {{ state.user | default('anonymous') }}!"
      upper: "{{ state.items | map(attribute='name') | join(', ') | upper }}"
      list: |
        {% for item in state.items %}- {{ item.name }}
        {% endfor %}
      secret: "{{ secrets.token }}"
      model: "{{ env.MODEL | default('none') }}"
`,
      { items: [{ name: 'a' }, { name: 'b' }] },
      { secrets: { token: 't0k' } },
    );
    expect(result.status).toBe('completed');
    expect(result.state.echoed).toEqual({
      items: [{ name: 'a' }, { name: 'b' }],
      count: 2,
      limit: 3,
      greeting: 'Hello anonymous!',
      upper: 'A, B',
      list: '- a\n- b\n\n',
      secret: 't0k',
      model: 'none',
    });
  });

  it('goto rules use TEA truthiness; the first truthy rule wins', async () => {
    const yaml = `nodes:
  - name: judge
    goto:
      - if: "{{ state.verdict }}"
        to: accept
      - if: state.score >= 0.5
        to: retry
      - to: reject
  - name: accept
    run: return { outcome = 'accept' }
    goto: __end__
  - name: retry
    run: return { outcome = 'retry' }
    goto: __end__
  - name: reject
    run: return { outcome = 'reject' }
`;
    expect((await run(yaml, { verdict: 'yes', score: 0 })).state.outcome).toBe('accept');
    expect((await run(yaml, { verdict: 'No', score: 0.7 })).state.outcome).toBe('retry');
    expect((await run(yaml, { verdict: 'none', score: 0.1 })).state.outcome).toBe('reject');
    expect((await run(yaml, { verdict: [], score: 0.1 })).state.outcome).toBe('reject');
  });

  it('a template loop bomb fails the run with TEMPLATE_LIMIT at its node', async () => {
    const result = await run(`nodes:
  - name: bomb
    uses: test.echo
    with:
      text: "{% for i in range(10**9) %}x{% endfor %}"
`);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('TEMPLATE_LIMIT');
    expect(result.error?.node).toBe('bomb');
  });

  it('a growth bomb fails the run with TEMPLATE_LIMIT, and the next run works', async () => {
    // Issue 12: a million copies of a million-item list, printed, joined, stringified, upper-cased.
    for (const text of [
      '{% set x = [1] * 1000000 %}{{ [x] * 1000000 }}',
      '{% set x = [1] * 1000000 %}{% set y = [x, x, x, x] %}{{ y | join }}',
      '{% set x = [1] * 1000000 %}{% set y = [x, x, x, x] %}Result: {{ y | string | upper }}',
    ]) {
      const result = await run(`nodes:
  - name: bomb
    uses: test.echo
    with:
      text: ${JSON.stringify(text)}
`);
      expect(result.status).toBe('failed');
      expect(result.error?.code).toBe('TEMPLATE_LIMIT');
      expect(result.error?.node).toBe('bomb');
    }
    const format = await run(
      `nodes:
  - name: fmt
    uses: test.echo
    with:
      text: "{{ '%.500e' % state.x }}"
`,
      { x: 1.5 },
    );
    expect(format.error?.code).toBe('TEMPLATE_ERROR');
    expect(format.error?.message).toContain("precision 500 in '%.500e' is too large");
    const after = await run(
      `nodes:
  - name: fine
    uses: test.echo
    with:
      text: "{{ state.items | join(', ') }}"
`,
      { items: ['a', 'b'] },
    );
    expect(after.status).toBe('completed');
    expect(after.state.echoed).toEqual({ text: 'a, b' });
  }, 60_000);

  it('a render error fails the run with TEMPLATE_ERROR at its node', async () => {
    const result = await run(
      `nodes:
  - name: bad
    uses: test.echo
    with:
      text: "{{ state.n - state.s }}"
`,
      { n: 1, s: 'x' },
    );
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('TEMPLATE_ERROR');
    expect(result.error?.node).toBe('bad');
  });

  it('syntax errors and unknown filters fail at load, naming node and field', () => {
    const syntax = loadFailure(`nodes:
  - name: draft
    uses: test.echo
    with:
      prompt: "Hi {{ state.name "
`);
    expect(syntax.code).toBe('TEMPLATE_ERROR');
    expect(syntax.location).toMatchObject({ node: 'draft', field: expect.stringContaining('prompt') });
    const filter = loadFailure(`nodes:
  - name: draft
    uses: test.echo
    with:
      prompt: "{{ state.name | shout }}"
`);
    expect(filter.code).toBe('TEMPLATE_ERROR');
    expect(filter.location.node).toBe('draft');
  });
});
