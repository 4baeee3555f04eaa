// Budgets with ceilings and a call that ends when the run is aborted (issue 12, point 2): no
// agent can buy an endless call with a huge or non-finite budget, and the run's AbortSignal or
// the host's interrupt callback (its duration budget) ends a running call in a way no pcall,
// xpcall or coroutine can catch.
import { describe, expect, it } from 'vitest';
import { AgentError } from '../core/agent-error.js';
import { LUA_BUDGET_CEILINGS, luaBudgetFromSettings, resolveBudget } from './budget-limits.js';
import { compileLua } from './compile-lua.js';
import { captureError, luaError } from './lua-test-helpers.js';
import type { LuaBudget } from './types.js';

/** Largest budget the hostile loops below are given: allowed, and far too long to wait for. */
const HUGE_BUT_ALLOWED = LUA_BUDGET_CEILINGS.instructions;

describe('budget ceilings', () => {
  const keys = Object.keys(LUA_BUDGET_CEILINGS) as (keyof LuaBudget)[];

  it('refuses every budget over its ceiling, non-finite or not positive, naming it', () => {
    for (const key of keys) {
      for (const value of [
        LUA_BUDGET_CEILINGS[key] + 1,
        Number.POSITIVE_INFINITY,
        Number.NaN,
        Number.MAX_VALUE * 2,
        -5,
        0,
      ]) {
        const error = captureError(() => resolveBudget({ [key]: value }));
        expect(error.code).toBe('INVALID_PARAMS');
        expect(error.message).toContain(key);
        expect(error.details.budget).toBe(key);
      }
      expect(resolveBudget({ [key]: LUA_BUDGET_CEILINGS[key] })[key]).toBe(LUA_BUDGET_CEILINGS[key]);
    }
  });

  it('refuses a run whose budget is over the ceiling before any Lua runs', () => {
    const error = luaError('while true do end', {}, { budget: { instructions: 2_000_000_000 } });
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.node).toBe('test');
  });

  it('reads settings.lua at load, refusing what is over the ceiling or not finite', () => {
    expect(luaBudgetFromSettings({ lua: { instructions: 5_000_000 } })).toEqual({ instructions: 5_000_000 });
    expect(luaBudgetFromSettings({})).toBeUndefined();
    for (const instructions of [2_000_000_000, Number.POSITIVE_INFINITY, Number.NaN, '1e9', -1]) {
      const error = captureError(() => luaBudgetFromSettings({ lua: { instructions } }, { file: 'agent.yaml' }));
      expect(error.code).toBe('INVALID_AGENT');
      expect(error.location.field).toBe('settings.lua.instructions');
      expect(error.location.file).toBe('agent.yaml');
    }
    expect(captureError(() => luaBudgetFromSettings({ lua: [1] })).code).toBe('INVALID_AGENT');
  });
});

describe('the run signal ends a running call', () => {
  /** A loop with the largest allowed budget; `print` aborts `controller` from inside the call. */
  function abortedFromInside(body: string, reason?: unknown): AgentError {
    const controller = new AbortController();
    const chunk = compileLua(`print("started") ${body}`, { node: 'spin', field: 'run' });
    return captureError(() =>
      chunk.run(
        {},
        {
          budget: { instructions: HUGE_BUT_ALLOWED },
          signal: controller.signal,
          onPrint: () => controller.abort(reason),
        },
      ),
    );
  }

  it('ends while true do end with CANCELLED when the signal aborts', () => {
    const error = abortedFromInside('while true do end');
    expect(error.code).toBe('CANCELLED');
    expect(error.node).toBe('spin');
  });

  it('cannot be caught by pcall, xpcall or a coroutine', () => {
    for (const body of [
      'while true do pcall(function() while true do end end) end',
      'xpcall(function() while true do end end, function() while true do end end)',
      'while true do coroutine.resume(coroutine.create(function() while true do end end)) end',
      'while true do pcall(coroutine.wrap(function() while true do end end)) end',
    ]) {
      expect(abortedFromInside(body).code, body).toBe('CANCELLED');
    }
  });

  it('ends the call with the abort reason when it is an AgentError (the duration budget)', () => {
    const reason = new AgentError('BUDGET_EXCEEDED', 'the run took longer than 1000 ms', {
      details: { budget: 'max_duration_ms' },
    });
    const error = abortedFromInside('while true do end', reason);
    expect(error.code).toBe('BUDGET_EXCEEDED');
    expect(error.details.budget).toBe('max_duration_ms');
    expect(error.node).toBe('spin');
  });

  it('does not start a call when the signal has already aborted', () => {
    const controller = new AbortController();
    controller.abort();
    const chunk = compileLua('print("ran") return 1', { node: 'late' });
    const printed: string[] = [];
    const error = captureError(() =>
      chunk.run({}, { signal: controller.signal, onPrint: (line) => printed.push(line) }),
    );
    expect(error.code).toBe('CANCELLED');
    expect(printed).toEqual([]);
    expect(chunk.run({})).toBe(1);
  });
});

describe('the interrupt callback', () => {
  it('is called every slice of instructions and ends the call when it throws', () => {
    let calls = 0;
    const stop = new AgentError('BUDGET_EXCEEDED', 'over time', { details: { budget: 'max_duration_ms' } });
    const error = captureError(() =>
      compileLua('local n = 0 while true do pcall(function() n = n + 1 end) end', { node: 'loop' }).run(
        {},
        {
          budget: { instructions: HUGE_BUT_ALLOWED },
          interrupt: () => {
            calls += 1;
            if (calls === 20) throw stop;
          },
        },
      ),
    );
    expect(error.code).toBe('BUDGET_EXCEEDED');
    expect(calls).toBe(20);
  });

  it('keeps the instruction count exact across slices', () => {
    // 10,000-instruction slices: a budget that is not a multiple of the slice still ends the loop
    for (const instructions of [1_000, 25_001, 123_457]) {
      const error = luaError('local n = 0 while true do n = n + 1 end', {}, { budget: { instructions } });
      expect(error.details).toMatchObject({ budget: 'instructions', limit: instructions });
    }
    expect(
      compileLua('local s = 0 for i = 1, 30000 do s = s + i end return s', {}).run(
        {},
        { budget: { instructions: 100_000 } },
      ),
    ).toBe(450015000);
  });
});
