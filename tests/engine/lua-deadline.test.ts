/**
 * Lua is synchronous, so no timer fires while a script spins: the run's duration budget and its
 * signal reach into the VM through the sandbox's interrupt hook. And `settings.lua` budgets over
 * their host ceiling are refused when the agent loads, not when the node runs.
 */
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { AgentError } from '../../src/core/agent-error.js';

const spinning = (limits: string, lua = 'instructions: 100000000') =>
  `name: spin\nsettings:\n  lua: { ${lua} }\n  limits: { ${limits} }\nnodes:\n  - name: spin\n    run: |\n      local n = 0\n      while true do n = n + 1 end\n`;

describe('a Lua call under the run budgets', () => {
  it('max_duration_ms ends a Lua loop that would run to the instruction ceiling', { timeout: 60_000 }, async () => {
    const run = runAgent(loadAgent(spinning('max_duration_ms: 200'), { file: 'spin.yaml' }), {});
    const result = await run.result;
    expect(result.status).toBe('failed');
    expect(result.stop_reason).toBe('max_duration_ms');
    expect(result.error).toMatchObject({ code: 'BUDGET_EXCEEDED', node: 'spin' });
  });

  for (const [value, says] of [
    ['2000000000', 'ceiling'],
    ['.inf', ''],
    ['-5', ''],
  ] as const) {
    it(`settings.lua.instructions: ${value} is refused at load`, () => {
      let error: unknown;
      try {
        loadAgent(spinning('max_steps: 10', `instructions: ${value}`), { file: 'spin.yaml' });
      } catch (caught) {
        error = caught;
      }
      expect(AgentError.isInstance(error)).toBe(true);
      const agentError = error as AgentError;
      expect(agentError.code).toBe('INVALID_AGENT');
      expect(agentError.message).toContain('instructions');
      if (says !== '') expect(agentError.message).toMatch(/ceiling|maximum|must be <=|100000000/);
    });
  }
});
