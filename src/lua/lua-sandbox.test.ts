// Capabilities the sandbox must not offer (docs/spec.md#3-inline-lua; reference/security-catalogue.md §3.1).
import { describe, expect, it } from 'vitest';
import { luaError, runLua } from './lua-test-helpers.js';

describe('sandbox: unreachable capabilities', () => {
  const refused: [string, string][] = [
    ['io', 'io.write("x")'],
    ['io.open', 'return io.open("/etc/passwd")'],
    ['os.execute', 'return os.execute("id")'],
    ['os.getenv', 'return os.getenv("HOME")'],
    ['os.exit', 'os.exit(7)'],
    ['os.remove', 'return os.remove("/tmp/x")'],
    ['require', 'return require("os")'],
    ['js', 'return js.global'],
    ['debug', 'return debug.getregistry()'],
    ['package', 'return package.loadlib("x.js", "f")'],
    ['dofile', 'return dofile("/etc/passwd")'],
    ['loadfile', 'return loadfile("/etc/passwd")'],
    ['collectgarbage', 'return collectgarbage("count")'],
    ['string.dump', 'return string.dump(function() end)'],
    ['binary load', 'return assert(load("\\27Lua\\83\\0"))()'],
    ['binary load with mode b', 'return assert(load(string.char(27) .. "Lua", "x", "b"))()'],
    ['fengari', 'return fengari.VERSION'],
  ];

  for (const [name, code] of refused) {
    it(`refuses ${name} with LUA_ERROR`, () => {
      expect(luaError(code).code).toBe('LUA_ERROR');
    });
  }

  it('does not even have the globals', () => {
    const code =
      'return { io == nil, os.execute == nil, require == nil, js == nil, debug == nil, package == nil, dofile == nil, loadfile == nil, collectgarbage == nil, string.dump == nil }';
    expect(runLua(code)).toEqual(Array(10).fill(true));
  });

  it('keeps only os.time, os.clock and os.date', () => {
    expect(
      runLua('local names = {} for name in pairs(os) do names[#names + 1] = name end table.sort(names) return names'),
    ).toEqual(['clock', 'date', 'time']);
  });

  it('says why a binary chunk is refused', () => {
    expect(runLua('local f, message = load("\\27Lua") return message')).toContain('binary');
  });

  it('reports an error object whose __tostring loops without running it', () => {
    const error = luaError('error(setmetatable({}, { __tostring = function() while true do end end }))');
    expect(error.code).toBe('LUA_ERROR');
  });
});
