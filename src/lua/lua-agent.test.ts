// Lua through the engine: load-time syntax errors with the file line, runtime and budget errors
// in run results, print as log events, and no state shared between runs of one loaded agent.
import { describe, expect, it } from 'vitest';
import { runAgent } from '../graph/run-agent.js';
import { loadAgent } from '../load-agent-with-scripts.js';
import type { AgentEvent } from '../core/events.js';
import { captureError } from './lua-test-helpers.js';

async function runLoaded(agent: ReturnType<typeof loadAgent>, input: Record<string, unknown> = {}) {
  const run = runAgent(agent, input);
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return { result: await run.result, events };
}

describe('Lua in agents', () => {
  it('reports a syntax error at load with the node and the line in the file', () => {
    const yaml =
      'name: broken\nnodes:\n  - name: calc\n    run: |\n      local x = 1\n      local y = = 2\n      return x\n';
    const error = captureError(() => loadAgent(yaml, { file: 'broken.yaml' }));
    expect(error.code).toBe('LUA_SYNTAX');
    expect(error.node).toBe('calc');
    expect(error.location.line).toBe(6);
  });

  it('reports a runtime error with the line in the file', async () => {
    const yaml = 'name: failing\nnodes:\n  - name: reader\n    run: |\n      local t = nil\n      return t.x\n';
    const { result } = await runLoaded(loadAgent(yaml, { file: 'failing.yaml' }));
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('LUA_ERROR');
    expect(result.error?.node).toBe('reader');
    expect(result.error).toMatchObject({ file: 'failing.yaml', line: 6 });
  });

  it('ends a hostile node with LUA_BUDGET naming the budget', async () => {
    const yaml =
      "name: hostile\nnodes:\n  - name: bomb\n    run: |\n      return string.find(string.rep('a', 300), '.-.-.-.-.-b')\n";
    const { result } = await runLoaded(loadAgent(yaml, { file: 'hostile.yaml' }));
    expect(result.error?.code).toBe('LUA_BUDGET');
    expect(result.error?.details?.budget).toBe('pattern_steps');
  });

  it('sends print output to log events', async () => {
    const yaml =
      'name: printing\nnodes:\n  - name: talk\n    run: |\n      print("hello", state.who)\n      return { done = true }\n';
    const { result, events } = await runLoaded(loadAgent(yaml, { file: 'printing.yaml' }), { who: 'world' });
    expect(result.state).toMatchObject({ done: true });
    expect(events.some((event) => event.type === 'log' && JSON.stringify(event.data).includes('hello\\tworld'))).toBe(
      true,
    );
  });

  it('shares nothing between runs of one loaded agent', async () => {
    const yaml = [
      'name: leaky',
      'nodes:',
      '  - name: probe',
      '    run: |',
      '      local seen = { leaked = leaked, upper = ("a"):upper() }',
      '      leaked = "from an earlier run"',
      '      string.upper = function() return "evil" end',
      '      return seen',
    ].join('\n');
    const agent = loadAgent(yaml, { file: 'leaky.yaml' });
    await runLoaded(agent);
    const { result } = await runLoaded(agent);
    expect(result.state).toEqual({ upper: 'A' });
  });
});
