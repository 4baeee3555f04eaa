// A compiled chunk reuses one VM across calls; nothing one call does may be seen by the next.
import { describe, expect, it } from 'vitest';
import { compileLua } from './compile-lua.js';
import type { CompiledLua } from './types.js';

/** Runs `poison` once, then `probe` on the same compiled chunk (both branches live in one chunk). */
function afterPoison(poison: string, probe: string): unknown {
  const chunk: CompiledLua = compileLua(
    `if state.phase == 'poison' then\n${poison}\nreturn 'poisoned'\nend\n${probe}`,
    { node: 'shared' },
  );
  try {
    chunk.run({ state: { phase: 'poison' } });
  } catch {
    // a poisoning attempt may fail by itself; what matters is the next call
  }
  return chunk.run({ state: { phase: 'probe' } });
}

describe('isolation between calls of one compiled chunk', () => {
  it('does not leak globals', () => {
    expect(afterPoison('leaked = 42; _G.other = 1; rawset(_G, "third", 3)', 'return { leaked, other, third }')).toEqual(
      {},
    );
    expect(afterPoison('print = function() end', 'return print == nil or type(print) == "function"')).toBe(true);
  });

  it('does not let string.upper = nil or a replaced string.rep reach the next call', () => {
    expect(
      afterPoison(
        'string.upper = nil; string.rep = function() return "evil" end',
        'return { string.upper("a"), string.rep("b", 2) }',
      ),
    ).toEqual(['A', 'bb']);
  });

  it("does not let the string metatable's __index (method calls) be poisoned", () => {
    const poison =
      'string.upper = function() return "evil" end; local mt = getmetatable("") if mt then mt.__index = { upper = function() return "evil" end } end';
    expect(afterPoison(poison, 'return { ("a"):upper(), ("b"):rep(2) }')).toEqual(['A', 'bb']);
  });

  it('keeps method calls and the string table in agreement within one call', () => {
    expect(compileLua('string.shout = function(s) return s:upper() .. "!" end return ("hi"):shout()', {}).run({})).toBe(
      'HI!',
    );
  });

  it('protects the string metatable', () => {
    expect(compileLua('return getmetatable("")', {}).run({})).toBe(false);
  });

  it('does not let table, math, os, coroutine, utf8 or json be poisoned', () => {
    const poison =
      'table.insert = nil; math.floor = nil; os.time = nil; coroutine.wrap = nil; utf8.char = nil; json.encode = nil; json.null = 1';
    const probe =
      'return { type(table.insert), type(math.floor), type(os.time), type(coroutine.wrap), type(utf8.char), type(json.encode), type(json.null) }';
    expect(afterPoison(poison, probe)).toEqual([
      'function',
      'function',
      'function',
      'function',
      'function',
      'function',
      'userdata',
    ]);
  });

  it('does not let a library set to nil come back within the same call', () => {
    expect(compileLua('string = nil return string == nil', {}).run({})).toBe(true);
  });

  it('does not let the json.array marker or json.null be poisoned', () => {
    const poison =
      'local mt = getmetatable(json.array()) if type(mt) == "table" then mt.__index = function() return "evil" end end';
    expect(afterPoison(poison, 'local a = json.array() return { a.anything, getmetatable(a) }')).toEqual({
      2: 'json.array',
    });
  });

  it('does not let load() compile into a previous environment', () => {
    expect(afterPoison('secret = "x"; stash = load("return secret")', 'return { secret, stash }')).toEqual({});
  });

  it('does not carry the random seed into the next call', () => {
    const chunk = compileLua('if state.seed then math.randomseed(1) end return math.random(1, 1000000)', {
      node: 'dice',
    });
    chunk.run({ state: { seed: true } });
    const values = new Set(Array.from({ length: 5 }, () => chunk.run({ state: { seed: false } })));
    expect(values.size).toBeGreaterThan(1);
  });

  it('does not let a setmetatable on _G reach the next call', () => {
    expect(
      afterPoison('setmetatable(_G, { __index = function() return "evil" end })', 'return missing_name'),
    ).toBeNull();
  });

  it('isolates two chunks from each other', () => {
    const writer = compileLua('shared = "x"; string.upper = nil; return 1', { node: 'a' });
    const reader = compileLua('return { shared, ("a"):upper() }', { node: 'b' });
    writer.run({});
    expect(reader.run({})).toEqual({ 2: 'A' });
  });

  it('gives a fresh state table each call (input tables are copies)', () => {
    const chunk = compileLua('state.items[1] = "changed" return state.items', { node: 'mutate' });
    const input = { items: ['original'] };
    expect(chunk.run({ state: input })).toEqual(['changed']);
    expect(input.items).toEqual(['original']);
    expect(chunk.run({ state: input })).toEqual(['changed']);
  });
});
