// Memory no budget used to count (issue 12, point 1), attacked in forms other than the issue's:
// strings converted out of Lua many times (the result, json.encode, error values, table keys),
// Lua stacks filled by multi-value pushes and parked in coroutines, values copied by one
// instruction, and error text built from script-controlled data. Each attack must end with a
// typed error, within its budget, without the heap growing by hundreds of megabytes.
import { describe, expect, it } from 'vitest';
import { MAX_ERROR_TEXT } from './error-text.js';
import { compileLua } from './compile-lua.js';
import { captureError, luaError } from './lua-test-helpers.js';
import type { LuaRunOptions } from './compile-lua.js';

/** A generous bound on heap growth: an unbounded attack would need gigabytes. */
const HEAP_GROWTH_LIMIT = 300 * 1024 * 1024;

/** Runs `code`, expecting LUA_BUDGET; returns the budget name. Checks the heap stayed bounded. */
function budgetOf(code: string, options: LuaRunOptions = {}): string {
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const error = luaError(
    code,
    {},
    { ...options, interrupt: () => void (peak = Math.max(peak, process.memoryUsage().heapUsed)) },
  );
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  expect(error.code, error.message).toBe('LUA_BUDGET');
  expect(peak - before).toBeLessThan(HEAP_GROWTH_LIMIT);
  return error.details.budget as string;
}

// 5,000 references to one 512 KiB string, through a shared inner table (2.5 GB if decoded).
const SHARED_STRINGS = `
local s = ("y"):rep(512 * 1024)
local inner = {}
for i = 1, 100 do inner[i] = s end
local outer = {}
for i = 1, 50 do outer[i] = { level = inner } end
`;

describe('strings converted out of Lua are charged each time they are emitted', () => {
  it('ends a returned table of 5,000 references to a 512 KiB string with string_bytes', () => {
    expect(budgetOf(`${SHARED_STRINGS} return outer`)).toBe('string_bytes');
  });

  it('charges json.encode of the same table even under pcall, in a loop', () => {
    expect(['string_size', 'string_bytes']).toContain(
      budgetOf(`${SHARED_STRINGS} while true do pcall(json.encode, outer) end`),
    );
  });

  it('charges a long string used as a table key in a table referenced many times', () => {
    const code =
      'local key = ("k"):rep(300 * 1024) local t = { [key] = 1 } local all = {} for i = 1, 3000 do all[i] = t end return all';
    expect(budgetOf(code)).toBe('string_bytes');
  });

  it('counts what the script created and what it returns against one string budget', () => {
    // 9 MiB created + 9 MiB returned > 16 MiB; either alone fits
    const code = 'local t = {} for i = 1, 9 do t[i] = ("z"):rep(1024 * 1024 - i) end return t';
    expect(budgetOf(code)).toBe('string_bytes');
    expect(compileLua('local s = ("z"):rep(1024 * 1024) return { s, s, s }', {}).run({})).toHaveLength(3);
  });

  it('keeps a huge error value out of the error instead of decoding it', () => {
    const error = luaError(`${SHARED_STRINGS} error(outer)`);
    expect(error.code).toBe('LUA_ERROR');
    expect(error.details.value).toBeUndefined();
    expect(error.message).toContain('table');
    expect(luaError('error({ reason = "bad", code = 7 })').details.value).toEqual({ reason: 'bad', code: 7 });
  });

  it('lets a VM that ran out while converting be replaced, so the next call works', () => {
    const chunk = compileLua(
      'if state.attack then local s = ("q"):rep(1e6) local t = {} for i = 1, 40 do t[i] = s end return t end return "fine"',
      {},
    );
    expect(captureError(() => chunk.run({ state: { attack: true } })).code).toBe('LUA_BUDGET');
    expect(chunk.run({ state: { attack: false } })).toBe('fine');
  });
});

describe('Lua stacks are charged to the table budget', () => {
  // A large instruction budget (still under its ceiling) so memory, not work, is what runs out.
  const roomy = { budget: { instructions: 50_000_000 } };

  it('ends coroutines parked on table.unpack of a large table with table_growth', () => {
    const code = `
      local t = {} for i = 1, 60000 do t[i] = i end
      local parked = {}
      for i = 1, 1000 do
        local co = coroutine.create(function(...) coroutine.yield() end)
        coroutine.resume(co, table.unpack(t))
        parked[i] = co
      end`;
    expect(budgetOf(code, roomy)).toBe('table_growth');
  });

  it('ends coroutines parked on utf8.codepoint over a long string with table_growth', () => {
    const code = `
      local s = ("é"):rep(45000)
      local parked = {}
      for i = 1, 1000 do
        parked[i] = coroutine.wrap(function() local all = { n = select("#", utf8.codepoint(s, 1, -1)) } coroutine.yield(utf8.codepoint(s, 1, -1)) end)
        parked[i]()
      end`;
    expect(budgetOf(code, roomy)).toBe('table_growth');
  });

  it('refunds a stack that shrinks, so a pcall loop over a large push is not a false alarm', () => {
    const code =
      'local s = ("b"):rep(50000) local n = 0 for i = 1, 40 do pcall(function() local x = select("#", string.byte(s, 1, -1)) n = n + x error("x") end) end return n';
    expect(compileLua(code, {}).run({}, roomy)).toBe(2_000_000);
  });

  it('ends a chain of closures held only through upvalues with table_growth', () => {
    const code =
      'local f = function() return 0 end for i = 1, 1e8 do local g = f f = function() return g() + 1 end end';
    expect(budgetOf(code, roomy)).toBe('table_growth');
  });

  it('ends functions kept from load() of generated code with table_growth', () => {
    const code =
      'local src = "return {" .. ("1,"):rep(20000) .. "}" local kept = {} for i = 1, 1000 do kept[i] = load(src) end';
    expect(budgetOf(code, roomy)).toBe('table_growth');
  });
});

describe('work one instruction does on many values is charged', () => {
  it('ends a loop of string.byte over a long string with instructions', () => {
    expect(budgetOf('local s = ("x"):rep(90000) while true do local n = select("#", string.byte(s, 1, -1)) end')).toBe(
      'instructions',
    );
  });

  it('ends varargs bounced between functions with instructions', () => {
    const code =
      'local function bounce(...) return ... end local function go(...) while true do bounce(...) end end go(string.byte(("x"):rep(25000), 1, -1))';
    expect(budgetOf(code)).toBe('instructions');
  });

  it('ends repeated utf8.codepoint pushes with instructions', () => {
    expect(budgetOf('local s = ("ж"):rep(40000) while true do utf8.codepoint(s, 1, -1) end')).toBe('instructions');
  });

  it('charges os.date for the length of its format', () => {
    expect(budgetOf('local format = ("%c"):rep(30000) while true do pcall(os.date, format) end')).toBe('instructions');
    expect(compileLua('return os.date("%Y", 86400 * 400)', {}).run({})).toBe('1971');
  });

  it('does not decode long global names on every access', () => {
    expect(budgetOf('local k = ("g"):rep(1e6) while true do local v = _G[k] _G[k] = nil end')).toBe('instructions');
  });
});

describe('long strings as table keys', () => {
  it('are keyed by their bytes: "\\1\\0" and "\\16" are different keys', () => {
    expect(
      compileLua(
        'local t = { ["\\1\\0"] = "a", ["\\16"] = "b" } return { t["\\1\\0"], t["\\16"], t["\\1\\0\\0"] == nil }',
        {},
      ).run({}),
    ).toEqual(['a', 'b', true]);
  });

  it('cost about their own size, so the string budget bounds them', () => {
    // each 1 MB key used to take a second and ~28 MB of heap
    expect(budgetOf('local t = {} for i = 1, 1e6 do t[("x"):rep(1e6 - i)] = i end')).toBe('string_bytes');
  });
});

describe('string.format with a precision', () => {
  it('reads only what it shows of a long string', () => {
    expect(budgetOf('local s = ("x"):rep(1e6) while true do local short = string.format("%.3s", s) end')).toBe(
      'instructions',
    );
    expect(compileLua('return string.format("[%.3s|%5s|%-4.2s]", ("é"):rep(500), "ab", "xyz")', {}).run({})).toBe(
      '[ééé|   ab|xy  ]',
    );
  });
});

describe('error text is capped', () => {
  it('cuts a 1 MB error message with a note', () => {
    const error = luaError('error(("e"):rep(1e6))');
    expect(error.code).toBe('LUA_ERROR');
    expect(error.message.length).toBeLessThan(MAX_ERROR_TEXT + 200);
    expect(error.message).toMatch(/cut: \d+ (bytes|characters) in all/);
  });

  it('shortens the path of a deeply nested table whose conversion fails', () => {
    // 99 levels of 8 KiB keys: a 800 KB path if written out
    const code =
      'local k = ("k"):rep(8 * 1024) local t = {} local cur = t for i = 1, 99 do local n = {} cur[k .. i] = n cur = n end cur.f = print';
    const returned = luaError(`${code} return t`);
    expect(returned.code).toBe('LUA_ERROR');
    expect(returned.message).toContain('function');
    expect(returned.message.length).toBeLessThan(MAX_ERROR_TEXT + 200);
    const encoded = compileLua(
      `${code} local ok, message = pcall(json.encode, t) return { ok = ok, length = #message }`,
      {},
    ).run({}) as { ok: boolean; length: number };
    expect(encoded.ok).toBe(false);
    expect(encoded.length).toBeLessThan(MAX_ERROR_TEXT + 200);
    const deep = luaError(
      'local k = ("d"):rep(1e5) local t = {} local cur = t for i = 1, 150 do local n = {} cur[k] = n cur = n end return t',
    );
    expect(deep.message).toContain('deeper than');
    expect(deep.message.length).toBeLessThan(MAX_ERROR_TEXT + 200);
  });

  it('caps a syntax error quoting a huge token', () => {
    const error = captureError(() => compileLua(`local x = 1\nx ${'b'.repeat(1_000_000)}`, { node: 'big' }));
    expect(error.code).toBe('LUA_SYNTAX');
    expect(error.message.length).toBeLessThan(MAX_ERROR_TEXT + 200);
    expect(error.message).toContain('cut');
  });

  it('caps a budget error raised while converting globals into Lua with a long name', () => {
    const error = captureError(() =>
      compileLua('for _, v in pairs(_G) do if type(v) == "table" then local _ = v.f end end', {}).run({
        ['n'.repeat(100_000)]: { f: () => 1 },
      }),
    );
    expect(error.code).toBe('LUA_ERROR');
    expect(error.message.length).toBeLessThan(MAX_ERROR_TEXT + 200);
  });
});
