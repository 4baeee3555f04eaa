// Hostile scripts: each must end with LUA_BUDGET naming the budget (never a hang, never a raw
// JavaScript exception), however it tries to catch the error.
import { describe, expect, it } from 'vitest';
import { compileLua } from './compile-lua.js';
import { captureError, luaError } from './lua-test-helpers.js';

function expectBudget(code: string, budget: string, options = {}): void {
  const error = luaError(code, {}, options);
  expect(error.code, error.message).toBe('LUA_BUDGET');
  expect(error.details.budget).toBe(budget);
}

describe('instruction budget', () => {
  it('stops an endless loop and names the line', () => {
    const error = luaError('local n = 0\nwhile true do n = n + 1 end');
    expect(error.code).toBe('LUA_BUDGET');
    expect(error.details.budget).toBe('instructions');
    expect(error.details.line).toBe(2);
  });

  it('cannot be swallowed by pcall, even in a loop', () => {
    expectBudget('while true do pcall(function() while true do end end) end', 'instructions');
    expectBudget('local ok = pcall(function() while true do end end) return ok', 'instructions');
  });

  it('cannot be swallowed by xpcall, whose looping message handler never runs unbounded', () => {
    expectBudget('xpcall(function() while true do end end, function(e) while true do end end)', 'instructions');
    expectBudget(
      'while true do xpcall(function() while true do end end, function(e) return e end) end',
      'instructions',
    );
  });

  it('cannot be swallowed by a coroutine', () => {
    expectBudget(
      'local co = coroutine.create(function() while true do end end) local ok = coroutine.resume(co) return ok',
      'instructions',
    );
    expectBudget('local f = coroutine.wrap(function() while true do end end) pcall(f)', 'instructions');
  });

  it('counts instructions across coroutines as one budget', () => {
    const code =
      'for i = 1, 1e7 do local co = coroutine.create(function() for j = 1, 50 do end end) coroutine.resume(co) end';
    // Each coroutine also counts 40 table slots: raise that budget (to its ceiling) so instructions run out first.
    expectBudget(code, 'instructions', { budget: { tableSlots: 1_000_000 } });
  });

  it('charges table library loops driven by a fake length', () => {
    expectBudget('table.insert(setmetatable({}, { __len = function() return 2^30 end }), 1, "x")', 'instructions');
    expectBudget('table.move({}, 1, 2^30, 2)', 'instructions');
  });

  it('charges one-instruction operations that scan long strings', () => {
    // with 200,000 instructions, each loop below ends after ~30 scans of 1 MiB
    const setup = 'local a, b = ("x"):rep(1e6), ("x"):rep(1e6)\n';
    const options = { budget: { instructions: 200_000 } };
    expectBudget(`${setup}local n = 0 while true do if a == b then n = n + 1 end end`, 'instructions', options);
    expectBudget(`${setup}while true do local less = a < b end`, 'instructions', options);
    expectBudget(`${setup}while true do utf8.len(a) end`, 'instructions', options);
    expectBudget(`${setup}while true do print(a) end`, 'instructions', options);
    expectBudget(
      `${setup}local padded = (" "):rep(1e6 - 1) .. "1" while true do json.decode(padded) end`,
      'instructions',
      options,
    );
  });

  it('refuses 1 MiB numerals instead of decoding them on every operation', () => {
    expect(luaError('local s = ("1"):rep(1e6) return s + 1').code).toBe('LUA_ERROR');
    // each failed attempt builds an error message: whichever budget runs out first ends it
    const error = luaError(
      'local s = ("1"):rep(1e6) while true do pcall(function() return s + 1 end) end',
      {},
      { budget: { instructions: 200_000 } },
    );
    expect(error.code).toBe('LUA_BUDGET');
    expect(['instructions', 'string_bytes']).toContain(error.details.budget);
  });

  it('charges load() for the code it parses', () => {
    expectBudget('local chunk = ("x = 1 "):rep(1e4) while true do load(chunk) end', 'instructions');
  });

  it('charges failed json.encode attempts for the values they visited', () => {
    expectBudget(
      'local t = {} for i = 1, 2e4 do t[i] = i end t[#t + 1] = print while true do pcall(json.encode, t) end',
      'instructions',
      { budget: { instructions: 200_000 } },
    );
  });

  it('honours a smaller budget and lets honest work finish', () => {
    expectBudget('local s = 0 for i = 1, 1e5 do s = s + i end', 'instructions', { budget: { instructions: 10_000 } });
    expect(compileLua('local s = 0 for i = 1, 1e4 do s = s + i end return s', {}).run({})).toBe(50005000);
  });
});

describe('string budgets', () => {
  it("refuses string.rep('x', 1e9) before allocating it, naming the line and the limit", () => {
    expectBudget("return string.rep('x', 1e9)", 'string_size');
    const error = luaError("local a = 1\nlocal b = 2\nreturn string.rep('x', 1e9)");
    expect(error.details).toMatchObject({ budget: 'string_size', limit: 1024 * 1024, line: 3 });
    expectBudget("return ('x'):rep(1e6, ('y'):rep(10))", 'string_size');
  });

  it('stops s = s .. s doubling', () => {
    expectBudget("local s = 'x' for i = 1, 40 do s = s .. s end return #s", 'string_size');
  });

  it('stops table.concat of a huge table', () => {
    expectBudget("local t = {} for i = 1, 1.1e5 do t[i] = 'abcdefghij' end return #table.concat(t)", 'string_size');
  });

  it('caps the total bytes of strings created in one call, even under pcall', () => {
    expectBudget("local t = {} for i = 1, 40 do pcall(function() t[i] = ('x'):rep(1e6 - i) end) end", 'string_bytes');
  });

  it('bounds the lexer buffer of load() with a reader function', () => {
    const code = "local piece = ('x'):rep(1000) load(function() return piece end)";
    expectBudget(code, 'instructions'); // parsing is charged 4 instructions per byte
    // parsing also counts a table slot per 4 bytes (the function it builds): raise that budget too
    expectBudget(code, 'string_size', { budget: { instructions: 1e8, tableSlots: 1_000_000 } });
  });

  it('stops gsub explosions', () => {
    expectBudget("return (('a'):rep(1e5):gsub('a', ('b'):rep(1000)))", 'string_size');
  });
});

describe('table growth budget', () => {
  it('stops a table-growth bomb', () => {
    expectBudget('local t = {} for i = 1, 1e6 do t[i] = i end', 'table_growth', { budget: { tableSlots: 10_000 } });
    expectBudget('local t = {} for i = 1, 1e6 do t[i] = {} end', 'table_growth', { budget: { tableSlots: 10_000 } });
  });

  it('counts coroutines (each holds a stack) toward table growth', () => {
    expectBudget('local t = {} for i = 1, 1e6 do t[i] = coroutine.create(print) end', 'table_growth');
  });

  it('stops growth through library calls (json.decode)', () => {
    const text = `[${'0,'.repeat(40_000)}0]`;
    const chunk = compileLua('local all = {} for i = 1, 5 do all[i] = json.decode(state.text) end', {});
    const error = captureError(() => chunk.run({ state: { text } }, { budget: { tableSlots: 100_000 } }));
    expect(error.code).toBe('LUA_BUDGET');
    expect(error.details.budget).toBe('table_growth');
  });
});

describe('pattern budget', () => {
  it("ends the catastrophic string.find(string.rep('a', 300), '.-.-.-.-.-b') with pattern_steps", () => {
    expectBudget("return string.find(string.rep('a', 300), '.-.-.-.-.-b')", 'pattern_steps');
  });

  it('bounds long literal patterns and repeated scans', () => {
    expectBudget("return ('a'):rep(1e5):find(('a'):rep(5e4) .. 'b')", 'pattern_steps');
    expectBudget("local s = ('x'):rep(1e6) while true do s:find('y', 1, true) end", 'pattern_steps');
  });

  it('bounds greedy backtracking, %b scans and plain finds', () => {
    expectBudget("return ('a'):rep(200):find(('a*'):rep(6) .. 'b')", 'pattern_steps');
    expectBudget("return ('('):rep(1e5):find('%b()')", 'pattern_steps');
    expectBudget("local s = ('a'):rep(5e5) return s:find(('a'):rep(2e4) .. 'b', 1, true)", 'pattern_steps');
  });

  it('cannot be swallowed by pcall', () => {
    expectBudget("while true do pcall(string.find, ('a'):rep(300), '.-.-.-.-.-b') end", 'pattern_steps');
  });
});

describe('stack budget', () => {
  it('turns deep recursion into a stack error', () => {
    expectBudget('local function f(n) return f(n + 1) + 1 end return f(1)', 'stack');
    expectBudget('local function f() return pcall(f) end return f()', 'stack');
    expectBudget(
      'local t = setmetatable({}, {}) getmetatable(t).__index = function(s, k) return s[k] end return t.x',
      'stack',
    );
  });
});

describe('no budget can be swallowed', () => {
  const bombs: [string, string][] = [
    ['instructions', 'while true do end'],
    ['string_size', "local s = string.rep('x', 1e9)"],
    ['string_bytes', "for i = 1, 40 do local s = ('x'):rep(1e6 - i) end"],
    ['table_growth', 'local t = {} for i = 1, 1e5 do t[i] = i end'],
    ['pattern_steps', "string.find(string.rep('a', 300), '.-.-.-.-.-b')"],
    ['stack', 'local function f(n) return f(n + 1) + 1 end f(1)'],
  ];
  const wrappers: [string, (bomb: string) => string][] = [
    ['pcall', (bomb) => `local ok = pcall(function() ${bomb} end) return ok`],
    ['xpcall with a looping handler', (bomb) => `xpcall(function() ${bomb} end, function(e) while true do end end)`],
    [
      'a coroutine',
      (bomb) => `local co = coroutine.create(function() ${bomb} end) local ok = coroutine.resume(co) return ok`,
    ],
    [
      'pcall around coroutine.wrap, in a loop',
      (bomb) => `while true do pcall(coroutine.wrap(function() ${bomb} end)) end`,
    ],
  ];
  for (const [budget, bomb] of bombs) {
    for (const [name, wrap] of wrappers) {
      it(`${budget} inside ${name}`, () =>
        expectBudget(wrap(bomb), budget, { budget: { tableSlots: 50_000, totalStringBytes: 4 * 1024 * 1024 } }));
    }
  }
});
