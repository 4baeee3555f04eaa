import { describe, expect, it } from 'vitest';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { loadError, runYaml } from '../engine/helpers.js';

/** TEA's legacy edges: `condition:` (string or {type: expression, value}) and `when:` mapping its result. */
const ROUTER = (condition: string) => `nodes:
  - name: classify
    run: |
      return { score = state.score }
  - name: high
    run: |
      return { route = 'high' }
  - name: low
    run: |
      return { route = 'low' }
edges:
  - from: __start__
    to: classify
  - from: classify
    ${condition}
    when: true
    to: high
  - from: classify
    ${condition}
    when: false
    to: low
  - from: high
    to: __end__
  - from: low
    to: __end__
`;

describe('edge condition:', () => {
  it.each([
    ['string form', 'condition: "state.score > 0.5"'],
    ['{type: expression, value} form', 'condition: { type: expression, value: "state.score > 0.5" }'],
    ['template form', 'condition: "{{ state.score > 0.5 }}"'],
  ])(
    '%s: when: true / when: false route on the result (the first edge no longer always wins)',
    async (_what, condition) => {
      expect((await runYaml(ROUTER(condition), { score: 0.9 })).result.state.route).toBe('high');
      expect((await runYaml(ROUTER(condition), { score: 0.1 })).result.state.route).toBe('low');
    },
  );

  it("TEA's truthiness: a bare name reads state, `!name` negates, empty lists are false", async () => {
    const yaml = (condition: string) => ROUTER(`condition: "${condition}"`);
    expect((await runYaml(yaml('flag'), { flag: true })).result.state.route).toBe('high');
    expect((await runYaml(yaml('!flag'), { flag: true })).result.state.route).toBe('low');
    expect((await runYaml(yaml('{{ state.items }}'), { items: [] })).result.state.route).toBe('low');
    expect((await runYaml(yaml('{{ state.items }}'), { items: [1] })).result.state.route).toBe('high');
  });

  it('when: defaults to true; no matching edge is NO_ROUTE listing what was tried', async () => {
    const yaml = `nodes:
  - name: a
  - name: b
edges:
  - from: a
    condition: "state.go"
    to: b
`;
    expect((await runYaml(yaml, { go: true })).result.status).toBe('completed');
    const { result } = await runYaml(yaml, { go: false });
    expect(result.error?.code).toBe('NO_ROUTE');
    expect(result.error?.message).toContain('state.go');
  });

  it('a string when: beside condition: is refused at load with its position', () => {
    const error = loadError(
      'nodes:\n  - name: a\n  - name: b\nedges:\n  - from: a\n    condition: "state.x"\n    when: "yes"\n    to: b\n',
    );
    expect(error.message).toContain('`when:` is the boolean the condition must give');
    expect(error.location.line).toBe(7);
  });

  it('a template error in a condition names its line', () => {
    const error = loadError(
      'nodes:\n  - name: a\n  - name: b\nedges:\n  - from: a\n    condition: { type: expression, value: "state.x >" }\n    to: b\n',
    );
    expect(error.code).toBe('TEMPLATE_ERROR');
    expect(error.location.line).toBe(6);
  });

  it('an unknown condition type is refused', () => {
    const error = loadError(
      'nodes:\n  - name: a\n  - name: b\nedges:\n  - from: a\n    condition: { type: python, value: "x" }\n    to: b\n',
    );
    expect(error.code).toBe('INVALID_AGENT');
    expect(error.location.line).toBe(6);
  });
});

describe('graph warnings', () => {
  it('several plain edges from __start__ get a hint that TEA follows only the first', () => {
    const agent = loadAgent(
      'nodes:\n  - name: a\n    goto: __end__\n  - name: b\n    goto: __end__\nedges:\n  - from: __start__\n    to: a\n  - from: __start__\n    to: b\n',
      { file: 'test.yaml' },
    );
    expect(agent.warnings.join('\n')).toContain("TEA follows only the first plain edge from __start__ (to 'a')");
    expect(agent.spec.graphWarnings?.find((warning) => warning.message.includes('__start__'))?.line).toBe(9);
    expect(agent.warnings.join('\n')).toContain("node 'b' can never run");
  });

  it('the fan_in node of a dynamic_parallel counts as reached', () => {
    const agent = loadAgent(
      'nodes:\n  - name: fan\n    type: dynamic_parallel\n    items: [1]\n    fan_in: done\n    steps:\n      - run: return {}\n    goto: __end__\n  - name: done\n',
      { file: 'test.yaml' },
    );
    expect(agent.warnings).toEqual([]);
  });
});

describe('run: {type: expression}', () => {
  it('stores the native value of the expression under output_key (default result)', async () => {
    const { result } = await runYaml(
      `nodes:
  - name: check_count
    run:
      type: expression
      value: "state['items'] | length > 0"
      output_key: has_items
  - name: total
    run: { type: expression, value: "{{ state['items'] | length }}" }
  - name: lua_form
    run:
      type: lua
      code: |
        return { doubled = state.result * 2 }
`,
      { items: [1, 2] },
    );
    expect(result.state).toEqual({ items: [1, 2], has_items: true, result: 2, doubled: 4 });
  });

  it('run: {type: prolog} needs the Prolog sandbox, which the main entry loads only on demand (issue 16)', () => {
    const error = loadError('nodes:\n  - name: a\n    run:\n      type: prolog\n      code: "x."\n');
    expect(error.code).toBe('SCRIPT_ENGINE_NOT_LOADED');
    expect(error.location.line).toBe(4);
  });
});

describe('state_schema', () => {
  it("accepts TEA's type names and mappings ({type, description, properties, default})", () => {
    const agent = loadAgent(
      'state_schema:\n  query: str\n  results:\n    type: array\n    description: found\n  detection:\n    type: object\n    properties:\n      label: str\nnodes:\n  - name: a\n',
      { file: 'test.yaml' },
    );
    expect(agent.name).toBe('test');
  });
});

describe('conditional edges from __start__', () => {
  it.each(['condition: "state.x"', 'when: "state.x"'])(
    '%s on a __start__ edge is refused (it would be ignored)',
    (line) => {
      const error = loadError(
        `nodes:\n  - name: a\n  - name: b\nedges:\n  - from: __start__\n    ${line}\n    to: b\n`,
      );
      expect(error.message).toContain('an edge from __start__ cannot be conditional');
      expect(error.location.line).toBe(6);
    },
  );
});
