import { describe, expect, it } from 'vitest';
import { runYaml } from '../engine/helpers.js';

/** Static fan-out: each parallel_results entry answers its branch state's keys directly (TEA's ParallelFlowResult). */
const FAN_OUT = `nodes:
  - name: start
    run: |
      return { topic = 'x', parallel_results = 'old' }
  - name: left
    run: |
      return { answer = 'L', success = 'shadowed' }
    goto: merge
  - name: right
    run: |
      return { answer = 'R' }
    goto: merge
  - name: merge
    fan_in: true
    uses: json.parse
    with:
      text: '{"first": "{{ state.parallel_results[0].answer }}", "second": "{{ state.parallel_results[1]["answer"] }}", "topic": "{{ state.parallel_results[1].topic }}"}'
    output: read
  - name: lua_reads
    run: |
      local r = state.parallel_results
      return { lua = r[1].answer .. r[2].answer .. r[1].state.answer, ok = r[1].success }
edges:
  - from: start
    to: [left, right]
    parallel: true
    fan_in: merge
`;

describe('parallel_results', () => {
  it('templates and Lua read branch-state keys directly, beside {branch, success, state, error, timing_ms}', async () => {
    const { result, events } = await runYaml(FAN_OUT);
    expect(result.status).toBe('completed');
    expect(result.state.read).toEqual({ data: { first: 'L', second: 'R', topic: 'x' } });
    expect(result.state).toMatchObject({ lua: 'LRL', ok: true });
    const [left] = result.state.parallel_results as Array<Record<string, unknown>>;
    expect(Object.keys(left!).slice(0, 5)).toEqual(['branch', 'success', 'state', 'error', 'timing_ms']);
    // The result's own fields win over a branch key of the same name (as in TEA); the state keeps it.
    expect(left!.success).toBe(true);
    expect((left!.state as Record<string, unknown>).success).toBe('shadowed');
    // A branch's own parallel_results is not copied up (it stays under state).
    expect(left!.parallel_results).toBeUndefined();
    expect((left!.state as Record<string, unknown>).parallel_results).toBe('old');
    // The same JSON in the done event as in the result.
    const done = events.at(-1)!;
    expect(done.type).toBe('done');
    expect(JSON.parse(JSON.stringify(done.type === 'done' ? done.data.state : undefined))).toEqual(
      JSON.parse(JSON.stringify(result.state)),
    );
  });
});
