// The Lua sandbox inside workerd (plain Miniflare, where code generation from strings is refused
// as in production): the bundled compileLua runs, hostile code ends in the same typed errors as
// in Node, and a reused VM stays isolated.
import * as esbuild from 'esbuild';
import { Miniflare } from 'miniflare';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CASES: Record<string, string> = {
  answer: 'return 6 * 7',
  capabilities:
    'return { io == nil, os.execute == nil, js == nil, require == nil, debug == nil, load("\\27Lua") == nil }',
  pcallLoop: 'while true do pcall(function() while true do end end) end',
  xpcallHandler: 'xpcall(function() while true do end end, function(e) while true do end end)',
  patternBomb: "return string.find(string.rep('a', 300), '.-.-.-.-.-b')",
  hugeRep: "return string.rep('x', 1e9)",
  doubling: "local s = 'x' for i = 1, 40 do s = s .. s end",
  recursion: 'local function f(n) return f(n + 1) + 1 end return f(1)',
  runtimeError: 'local t = nil\nreturn t.x',
  // issue 12: memory no budget used to count, and error text that was not capped
  sharedStrings: 'local s = ("y"):rep(512 * 1024) local t = {} for i = 1, 4000 do t[i] = s end return { t }',
  encodeInPcall:
    'local s = ("y"):rep(512 * 1024) local t = {} for i = 1, 4000 do t[i] = s end while true do pcall(json.encode, t) end',
  parkedUnpack:
    'local t = {} for i = 1, 60000 do t[i] = i end local parked = {} for i = 1, 1000 do local co = coroutine.create(function(...) coroutine.yield() end) coroutine.resume(co, table.unpack(t)) parked[i] = co end',
  longKeys: 'local t = {} for i = 1, 1e6 do t[("x"):rep(1e6 - i)] = i end',
  hugeError: 'error(("e"):rep(1e6))',
};

const ENTRY = `
import { compileLua } from './compile-lua.ts';
const cases = ${JSON.stringify(CASES)};
function outcome(run) {
  try {
    return { result: run() };
  } catch (error) {
    return { code: error.code, budget: error.details?.budget, line: error.details?.line, length: error.message.length };
  }
}
export default {
  fetch() {
    const outcomes = {};
    for (const [name, code] of Object.entries(cases)) outcomes[name] = outcome(() => compileLua(code, { node: name }).run({}));
    const shared = compileLua('local seen = { ("a"):upper(), leaked } string.upper = function() return "evil" end leaked = 1 return seen', { node: 'shared' });
    outcomes.isolation = outcome(() => [shared.run({}), shared.run({})]);
    return new Response(JSON.stringify(outcomes), { headers: { 'content-type': 'application/json' } });
  },
};
`;

describe('Lua sandbox inside workerd', () => {
  let miniflare: Miniflare;
  let outcomes: Record<string, { result?: unknown; code?: string; budget?: string; line?: number; length?: number }>;

  beforeAll(async () => {
    const bundle = await esbuild.build({
      stdin: {
        contents: ENTRY,
        resolveDir: fileURLToPath(new URL('.', import.meta.url)),
        loader: 'ts',
        sourcefile: 'lua-workerd-entry.ts',
      },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'warning',
    });
    const script = bundle.outputFiles[0]!.text;
    expect(script).not.toMatch(/\beval\(|new Function\(/);
    miniflare = new Miniflare({ modules: true, script, compatibilityDate: '2026-05-01' });
    const response = await miniflare.dispatchFetch('http://lua.test/');
    const body = await response.text();
    expect(response.status, body.slice(0, 500)).toBe(200);
    outcomes = JSON.parse(body);
  });
  afterAll(async () => {
    await miniflare?.dispose();
  });

  it('runs Lua and offers no capabilities', () => {
    expect(outcomes.answer).toEqual({ result: 42 });
    expect(outcomes.capabilities).toEqual({ result: [true, true, true, true, true, true] });
  });

  it('ends hostile code with LUA_BUDGET naming the budget', () => {
    expect(outcomes.pcallLoop).toMatchObject({ code: 'LUA_BUDGET', budget: 'instructions' });
    expect(outcomes.xpcallHandler).toMatchObject({ code: 'LUA_BUDGET', budget: 'instructions' });
    expect(outcomes.patternBomb).toMatchObject({ code: 'LUA_BUDGET', budget: 'pattern_steps' });
    expect(outcomes.hugeRep).toMatchObject({ code: 'LUA_BUDGET', budget: 'string_size' });
    expect(outcomes.doubling).toMatchObject({ code: 'LUA_BUDGET', budget: 'string_size' });
    expect(outcomes.recursion).toMatchObject({ code: 'LUA_BUDGET', budget: 'stack' });
  });

  it('charges memory no budget used to count and caps error text', () => {
    expect(outcomes.sharedStrings).toMatchObject({ code: 'LUA_BUDGET', budget: 'string_bytes' });
    expect(outcomes.encodeInPcall).toMatchObject({ code: 'LUA_BUDGET' });
    expect(outcomes.parkedUnpack).toMatchObject({ code: 'LUA_BUDGET' });
    expect(outcomes.longKeys).toMatchObject({ code: 'LUA_BUDGET', budget: 'string_bytes' });
    expect(outcomes.hugeError).toMatchObject({ code: 'LUA_ERROR' });
    expect(outcomes.hugeError?.length).toBeLessThan(5000);
  });

  it('reports runtime errors with their line', () => {
    expect(outcomes.runtimeError).toMatchObject({ code: 'LUA_ERROR', line: 2 });
  });

  it('keeps a reused VM isolated between calls', () => {
    expect(outcomes.isolation).toEqual({ result: [['A'], ['A']] });
  });
});
