import { describe, expect, it } from 'vitest';
import { loadError, runYaml } from '../engine/helpers.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';

/** TEA's parity example (docs/shared/yaml-reference/nodes.md, examples/while-loop-parity-test.yaml). */
const PARITY = `name: while-loop-parity-test
nodes:
  - name: counter_loop
    type: while_loop
    condition: "state.count < 5"
    max_iterations: 10
    body:
      - name: increment
        language: lua
        run: |
          local count = state.count or 0
          local sum = state.sum or 0
          return { count = count + 1, sum = sum + count + 1 }
edges:
  - from: __start__
    to: counter_loop
  - from: counter_loop
    to: __end__
`;

const exitOf = (events: Array<{ type: string; data: Record<string, unknown> }>) =>
  events.find((event) => event.type === 'log' && event.data.source === 'while_loop')?.data;

describe('type: while_loop', () => {
  it("iterations take the host's turns (RunOptions.breathe) when the host shares one with its runs", async () => {
    let turns = 0;
    const breathe = async () => void turns++;
    const { result } = await runYaml(PARITY, { count: 0, sum: 0 }, { breathe });
    expect(result.status).toBe('completed');
    // At least once per iteration, and between nodes.
    expect(turns).toBeGreaterThanOrEqual(5);
  });

  it("TEA's parity example ends with {count: 5, sum: 15}, exit reason condition_false", async () => {
    const { result, events } = await runYaml(PARITY, { count: 0, sum: 0 });
    expect(result.status).toBe('completed');
    expect(result.state).toEqual({ count: 5, sum: 15 });
    expect(exitOf(events)).toMatchObject({ iterations_completed: 5, exit_reason: 'condition_false' });
  });

  it('reaching max_iterations ends the loop normally with exit reason max_iterations_reached (TEA Python)', async () => {
    const { result, events } = await runYaml(PARITY.replace('max_iterations: 10', 'max_iterations: 3'), {
      count: 0,
      sum: 0,
    });
    expect(result.status).toBe('completed');
    expect(result.state).toEqual({ count: 3, sum: 6 });
    expect(exitOf(events)).toMatchObject({ iterations_completed: 3, exit_reason: 'max_iterations_reached' });
  });

  it('a condition false at the start runs the body zero times', async () => {
    const { result, events } = await runYaml(PARITY, { count: 7, sum: 0 });
    expect(result.state).toEqual({ count: 7, sum: 0 });
    expect(exitOf(events)).toMatchObject({ iterations_completed: 0, exit_reason: 'condition_false' });
  });

  it('body nodes run in order, each sees the previous one; the node after the loop sees the final state', async () => {
    const { result } = await runYaml(
      `nodes:
  - name: loop
    type: while_loop
    condition: "{{ state.items | length < 3 }}"
    max_iterations: 50
    body:
      - name: add
        run: |
          local items = state.items or {}
          items[#items + 1] = #items + 1
          return { items = items }
      - name: label
        run: |
          return { seen = { last = state.items[#state.items] } }
  - name: after
    run: |
      return { total = #state.items, last = state.seen.last }
`,
      { items: [] },
    );
    expect(result.state).toMatchObject({ items: [1, 2, 3], total: 3, last: 3 });
  });

  it('every body node run counts against max_steps, so a loop cannot outrun the budget', async () => {
    const { result } = await runYaml(
      PARITY.replace('max_iterations: 10', 'max_iterations: 1000').replace('state.count < 5', 'true'),
      { count: 0, sum: 0 },
      { limits: { max_steps: 20 } },
    );
    expect(result.status).toBe('failed');
    expect(result.stop_reason).toBe('max_steps');
  });

  it('a body error fails the node, naming the body node and the iteration', async () => {
    const { result } = await runYaml(`nodes:
  - name: loop
    type: while_loop
    condition: "true"
    max_iterations: 5
    body:
      - name: boom
        run: |
          if (state.n or 0) >= 2 then error('too far') end
          return { n = (state.n or 0) + 1 }
`);
    expect(result.status).toBe('failed');
    expect(result.error?.node).toBe('loop');
    expect(result.error?.message).toContain("body node 'boom' failed at iteration 2");
    expect(result.error?.message).toContain('too far');
  });

  it.each([
    ['max_iterations missing', 'condition: "true"\n    body:\n      - run: return {}', 'needs `max_iterations`'],
    [
      'max_iterations above 1000',
      'condition: "true"\n    max_iterations: 1001\n    body:\n      - run: return {}',
      'max_iterations',
    ],
    [
      'max_iterations 0',
      'condition: "true"\n    max_iterations: 0\n    body:\n      - run: return {}',
      'max_iterations',
    ],
    ['body missing', 'condition: "true"\n    max_iterations: 3', 'needs `body`'],
    [
      'a plain body key on the loop',
      'condition: "true"\n    max_iterations: 3\n    run: return {}\n    body:\n      - run: return {}',
      '`run` is not a key of a `type: while_loop` node',
    ],
  ])('refused at load with a position: %s', (_what, keys, says) => {
    const error = loadError(`nodes:\n  - name: loop\n    type: while_loop\n    ${keys}\n`);
    expect(error.code).toBe('INVALID_AGENT');
    expect(error.message).toContain(says);
    expect(error.location.line).toBeGreaterThanOrEqual(2);
    expect(error.location).toMatchObject({ file: 'test.yaml', column: expect.any(Number) });
  });

  it('a nested while_loop is refused (TEA refuses it too)', () => {
    const error = loadError(
      `nodes:\n  - name: loop\n    type: while_loop\n    condition: "true"\n    max_iterations: 3\n    body:\n      - name: inner\n        type: while_loop\n`,
    );
    expect(error.message).toContain('type');
    expect(error.location.line).toBe(8);
  });

  it('a node-level condition: (TEA ignores it; its examples write it) loads with a warning saying how to route instead', () => {
    const agent = loadAgent('nodes:\n  - name: a\n    condition: "true"\n    run: return {}\n', { file: 'test.yaml' });
    expect(agent.warnings).toHaveLength(1);
    expect(agent.warnings[0]).toMatch(
      /^node 'a': `condition:` on a node without `type: while_loop` is ignored \(TEA ignores it too.*goto rules.*\(line 3\)$/,
    );
  });

  it('an unknown node type is UNSUPPORTED_NODE_TYPE naming the types tea-edge runs', () => {
    const error = loadError('nodes:\n  - name: a\n    type: matrix\n');
    expect(error.code).toBe('UNSUPPORTED_NODE_TYPE');
    expect(error.message).toContain('`while_loop` and `dynamic_parallel`');
    expect(error.location.line).toBe(3);
  });
});

describe('pauses inside typed nodes', () => {
  const SCRIPT = `settings:
  llm:
    provider: scripted
    scripted:
      rules:
        - match: '"result"'
          response: '{"thought": "Save it.", "action": "memory.store", "action_input": {"key": "total", "value": 42}}'
      default: '{"thought": "Compute.", "action": "math.calculate", "action_input": {"expression": "6 * 7"}}'
`;
  const REACT = `uses: reason.react
        with:
          goal: "Compute 6*7 and save it."
          tools:
            - name: math.calculate
              tier: 1
            - name: memory.store
              tier: 3
          max_steps: 4
        output: react`;

  it('a tool confirmation inside a while_loop body is refused, not a checkpoint that would lose the iteration', async () => {
    const { result } = await runYaml(`${SCRIPT}nodes:
  - name: loop
    type: while_loop
    condition: "true"
    max_iterations: 2
    body:
      - name: work
        ${REACT}
`);
    expect(result.status).toBe('failed');
    expect(result.error?.message).toContain('cannot pause a run inside a while_loop body');
  });

  it('a tool confirmation inside a dynamic_parallel branch fails that branch only', async () => {
    const { result } = await runYaml(`${SCRIPT}nodes:
  - name: fan
    type: dynamic_parallel
    items: [1]
    fan_in: done
    steps:
      - name: work
        ${REACT}
  - name: done
`);
    expect(result.status).toBe('completed');
    const [branch] = result.state.parallel_results as Array<Record<string, any>>;
    expect(branch!.success).toBe(false);
    expect(branch!.error.message).toContain('cannot pause a run inside a dynamic_parallel branch');
  });
});

describe('keys of a typed node on a plain node', () => {
  it.each(['max_iterations: 3', 'items: [1]', 'item_var: x'])(
    '%s is refused, naming the node type it belongs to',
    (line) => {
      const error = loadError(`nodes:\n  - name: a\n    ${line}\n    run: return {}\n`);
      expect(error.message).toMatch(/belongs to a node with `type: (while_loop|dynamic_parallel)`/);
      expect(error.location.line).toBe(3);
    },
  );
});
