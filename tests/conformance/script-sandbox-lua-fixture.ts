/** The conformance fixture for the Lua sandbox: the suite's scripts written in Lua. */
import type { LuaBudget } from '../../src/lua/types.js';
import type { ScriptSandboxFixture } from '../../src/testing/script-sandbox-checks.js';

/** Lua's memory budget: table slots (keys, tables, closures, stack growth). */
const MEMORY_BUDGET: LuaBudget = { tableSlots: 5_000 };

export const LUA_FIXTURE: ScriptSandboxFixture = {
  echo: 'return input',
  add: 'return a + b',
  syntaxError: { code: 'local x = 1\nlocal y = = 2\nreturn y', line: 2 },
  runtimeError: { code: 'local x = 1\n\nerror("boom")', line: 3 },
  notJson: 'return function() end',
  endlessLoop: 'while true do end',
  catchingLoop: 'while true do pcall(function() while true do end end) end',
  memoryHog: 'local t = {} local i = 0 while true do i = i + 1 t[i] = { i } end',
  memoryBudget: MEMORY_BUDGET,
  memoryBudgetName: 'table_growth',
  printThenLoop: 'print("hello") while true do end',
  printMany: 'for i = 1, 1000 do print("0123456789") end',
  leakAndTamper:
    'local seen = leaked if seen == nil then seen = json.null end leaked = 1 string.upper = function() return "evil" end return seen',
  standardIntact: 'return ("a"):upper() == "A" and string.upper("b") == "B"',
  hugeError: 'error(("e"):rep(1e6))',
  stateReads: {
    keys: 'local _ = state.mid local keys = {} for k in pairs(state) do keys[#keys + 1] = k end return keys',
    length: 'local _ = state.list[2] return #state.list',
    twice: 'return { state.mid.inner.leaf, state.mid.inner.leaf }',
    mutation: 'local mid = state.mid mid.x = 99 return { seen = state.mid.x, alpha = state.alpha }',
    readSmall: 'return state.small',
    readBig: 'for _ in ipairs(state.big) do end return state.big[1]',
    // Each item read is a table entry (one slot).
    readBudget: { tableSlots: 1_000 } as LuaBudget,
    readBudgetName: 'table_growth',
  },
};
