import { describe, expect, it } from 'vitest';
import { compileLua } from './compile-lua.js';
import { captureError, luaError, runLua } from './lua-test-helpers.js';

describe('compileLua: running code', () => {
  it('runs the code as a function body and returns its first value as JSON', () => {
    expect(runLua('return state.x + 1', { state: { x: 41 } })).toBe(42);
    expect(runLua('return 1, 2')).toBe(1);
    expect(runLua('local unused = 1')).toBeNull();
  });

  it('sees the globals it is given: state, variables, output, iteration', () => {
    const code = 'return { s = state.name, v = variables.limit, o = output, i = iteration }';
    expect(runLua(code, { state: { name: 'a' }, variables: { limit: 3 }, output: 'text', iteration: 2 })).toEqual({
      s: 'a',
      v: 3,
      o: 'text',
      i: 2,
    });
  });

  it('runs the same compiled chunk many times with different inputs', () => {
    const chunk = compileLua('return state.n * 2', { node: 'double' });
    expect([1, 2, 3].map((n) => chunk.run({ state: { n } }))).toEqual([2, 4, 6]);
    expect(chunk.source).toBe('return state.n * 2');
  });

  it('offers string, table, math, utf8, coroutine, os.time/clock/date and json', () => {
    const code = `
      local words = {}
      for word in string.gmatch("b a c", "%a") do table.insert(words, word:upper()) end
      table.sort(words)
      local co = coroutine.wrap(function() coroutine.yield(utf8.char(233)) end)
      return { words = table.concat(words, ","), floor = math.floor(2.7), accent = co(),
               time = type(os.time()), clock = type(os.clock()), date = type(os.date("%Y")),
               encoded = json.encode({ 1, 2 }) }`;
    expect(runLua(code)).toEqual({
      words: 'A,B,C',
      floor: 2,
      accent: 'é',
      time: 'number',
      clock: 'number',
      date: 'string',
      encoded: '[1,2]',
    });
  });

  it('keeps string.rep exact (the build fills it by doubling)', () => {
    const code = `local out = {}
      for _, c in ipairs({ {"ab", 3, ","}, {"ab", 1, ","}, {"x", 5}, {"", 4, "-"}, {"abc", 0, ","}, {"ab", 4, "<>"}, {"x", 7, "yz"} }) do
        out[#out + 1] = string.rep(c[1], c[2], c[3])
      end
      local big = ("ab"):rep(100000, "-")
      out[#out + 1] = #big
      out[#out + 1] = big:sub(-5)
      return out`;
    expect(runLua(code)).toEqual([
      'ab,ab,ab',
      'ab',
      'xxxxx',
      '---',
      '',
      'ab<>ab<>ab<>ab',
      'xyzxyzxyzxyzxyzxyzx',
      299_999,
      'ab-ab',
    ]);
  });

  it('load compiles text chunks into the same sandbox environment', () => {
    expect(runLua('x = 5; return load("return x * 2")()')).toBe(10);
    expect(runLua('return load("return string.upper(\'a\')")()')).toBe('A');
  });

  it('makes math.random deterministic after math.randomseed, within one call only', () => {
    const chunk = compileLua('math.randomseed(7); return { math.random(1, 100), math.random(1, 100), math.random() }', {
      node: 'dice',
    });
    const first = chunk.run({}) as number[];
    expect(chunk.run({})).toEqual(first);
    expect(first[0]).toBeGreaterThanOrEqual(1);
    expect(first[0]).toBeLessThanOrEqual(100);
    expect(captureError(() => runLua('return math.random(5, 1)')).code).toBe('LUA_ERROR');
  });
});

describe('compileLua: errors', () => {
  it('reports a syntax error at compile time with node and line', () => {
    const error = captureError(() => compileLua('local x = 1\n\nreturn x +', { node: 'calc', field: 'run' }));
    expect(error.code).toBe('LUA_SYNTAX');
    expect(error.node).toBe('calc');
    expect(error.details.line).toBe(3);
    expect(error.message).toContain('line 3');
  });

  it('adds the line offset of the code in its file', () => {
    const error = captureError(() => compileLua('x = = 1', { node: 'calc', file: 'agent.yaml', line: 10 }));
    expect(error.code).toBe('LUA_SYNTAX');
    expect(error.location.line).toBe(11);
    expect(error.location.file).toBe('agent.yaml');
  });

  it('reports a runtime error with node, line and the Lua message', () => {
    const chunk = compileLua('local t = nil\nlocal y = 2\nreturn t.field', { node: 'reader', line: 4 });
    const error = captureError(() => chunk.run({}));
    expect(error.code).toBe('LUA_ERROR');
    expect(error.node).toBe('reader');
    expect(error.details.line).toBe(3);
    expect(error.location.line).toBe(7);
    expect(error.message).toContain("attempt to index a nil value (local 't')");
  });

  it('reports error() with a message, and error objects by type (keeping JSON values)', () => {
    expect(luaError('error("boom")').message).toContain('boom');
    const error = luaError('error({ code = 42 })');
    expect(error.code).toBe('LUA_ERROR');
    expect(error.details.value).toEqual({ code: 42 });
  });

  it('refuses to return values with no JSON form, naming the type', () => {
    expect(luaError('return function() end').message).toContain('function');
    expect(luaError('return { co = coroutine.create(function() end) }').message).toContain('thread');
    expect(luaError('return 0/0').code).toBe('LUA_ERROR');
    expect(luaError('local t = {} t.self = t return t').code).toBe('LUA_ERROR');
  });

  it('keeps working after errors (the VM is reused or replaced)', () => {
    const chunk = compileLua(
      'if state.fail == 1 then error("no") elseif state.fail == 2 then while true do end end return state.n',
      { node: 'n' },
    );
    expect(captureError(() => chunk.run({ state: { fail: 1, n: 1 } })).code).toBe('LUA_ERROR');
    expect(chunk.run({ state: { fail: 0, n: 2 } })).toBe(2);
    expect(captureError(() => chunk.run({ state: { fail: 2, n: 3 } }, { budget: { instructions: 10_000 } })).code).toBe(
      'LUA_BUDGET',
    );
    expect(chunk.run({ state: { fail: 0, n: 4 } })).toBe(4);
  });

  it('refuses globals that are not JSON when the script reaches them (globals are converted as read)', () => {
    expect(captureError(() => runLua('return state.f', { state: { f: () => 1 } })).code).toBe('LUA_ERROR');
    expect(captureError(() => runLua('for _ in pairs(state) do end', { state: { f: () => 1 } })).code).toBe(
      'LUA_ERROR',
    );
    expect(captureError(() => runLua('return pcall(json.encode, state)', { state: { f: () => 1 } })).code).toBe(
      'LUA_ERROR',
    );
    expect(runLua('return state.n', { state: { n: 1, f: () => 1 } })).toBe(1);
  });
});

describe('compileLua: print', () => {
  it('sends print output to onPrint, one line per call, tab-separated', () => {
    const lines: string[] = [];
    runLua('print("a", 1, nil, true) print(json.null == nil)', {}, { onPrint: (line) => lines.push(line) });
    expect(lines).toEqual(['a\t1\tnil\ttrue', 'false']);
  });

  it('caps the total print output of a call', () => {
    const lines: string[] = [];
    runLua(
      'for i = 1, 1000 do print(string.rep("x", 100)) end',
      {},
      { onPrint: (line) => lines.push(line), budget: { printBytes: 1000 } },
    );
    expect(lines.length).toBeLessThan(12);
    expect(lines.at(-1)).toContain('truncated');
  });

  it('allows a print callback to run the same chunk again (re-entrancy)', () => {
    const chunk = compileLua('print(state.depth) return state.depth', { node: 'echo' });
    const seen: unknown[] = [];
    const result = chunk.run({ state: { depth: 1 } }, { onPrint: () => seen.push(chunk.run({ state: { depth: 2 } })) });
    expect(result).toBe(1);
    expect(seen).toEqual([2]);
  });
});
