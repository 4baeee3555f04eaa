/**
 * The lazy view of the globals (lazy-table.ts) against the eager conversion it replaces: each
 * script runs once on `state` (lazy) and once on `json.decode` of the same JSON (an eager
 * conversion, same order and metatables), and both must give the same result. Then what only the
 * lazy view can get wrong: the host's value is never written, and reads are charged.
 */
import { describe, expect, it } from 'vitest';
import { compileLua } from './compile-lua.js';
import { captureError, runLua } from './lua-test-helpers.js';

const STATE = {
  zeta: 1,
  alpha: 'two',
  mid: { x: 1, y: [1, 2, { z: 'deep' }], nothing: null },
  list: [10, 30, 20, null, 'five'],
  '1': 'string one',
  'é ✓': 'unicode key',
  '\uFFFD': 'replacement character key',
  empty_list: [],
  empty_object: {},
  flag: false,
};

/** Runs `body` with `S` bound to the lazy `state`, then to an eager copy, and expects the same result. */
function sameAsEager(body: string, state: unknown = STATE): unknown {
  const lazy = compileLua(`local S = state\n${body}`, { node: 'lazy' }).run({ state });
  const eager = compileLua(`local S = json.decode(text)\n${body}`, { node: 'eager' }).run({
    text: JSON.stringify(state),
  });
  expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager));
  return lazy;
}

const KEYS =
  'local function keys(t) local out = {} for k in pairs(t) do out[#out + 1] = tostring(k) end return out end\n';

describe('the lazy view behaves as the eager conversion', () => {
  it('iterates in the value key order, whatever was read or written first', () => {
    expect(sameAsEager(`${KEYS}return keys(S)`)).toEqual(Object.keys(STATE));
    sameAsEager(`${KEYS}local _ = S.mid local _ = S.flag return keys(S)`);
    sameAsEager(`${KEYS}S.alpha = 'changed' S.added = 1 S.zeta = nil return { keys(S), S.alpha, S.zeta }`);
    sameAsEager(`${KEYS}S.zeta = nil S.zeta = 5 S.alpha = nil return { keys(S), json.encode(S) }`);
    sameAsEager(`${KEYS}rawset(S, 'list', nil) rawset(S, 'later', true) return keys(S)`);
    sameAsEager(
      `${KEYS}local out = {} local k, v = next(S) while k do out[#out + 1] = k k, v = next(S, k) end return { out, keys(S.mid) }`,
    );
    sameAsEager('return json.encode(S)');
    sameAsEager('return S');
  });

  it('gives the same lengths, ipairs and table library results', () => {
    sameAsEager('return { #S.list, rawlen(S.list), #S, #S.empty_list, #S.empty_object }');
    sameAsEager('local n = 0 for i, v in ipairs(S.list) do n = n + i end return n');
    sameAsEager(
      'S.list[#S.list + 1] = 9 table.insert(S.list, 1, 0) local r = table.remove(S.list, 2) return { r, #S.list, S.list }',
    );
    sameAsEager('local l = S.list l[4] = nil return { #l, l[5] }');
    sameAsEager(
      'local l = { S.list[1], S.list[2], S.list[3] } table.sort(l) return { l, table.concat(l, ","), table.unpack(S.mid.y, 1, 2) }',
    );
    sameAsEager(
      'local l = S.mid.y table.sort(S.list, function(a, b) return tostring(a) < tostring(b) end) return { S.list, #l }',
    );
  });

  it('reads keys of every kind, twice, through nested tables', () => {
    sameAsEager(
      'return { S["1"], S[1], S["é ✓"], S["\\u{FFFD}"], S["\\xff"], S.missing, S.list[2.0], S.list[0], S.list[6], S.list[1.5] }',
    );
    sameAsEager(
      'local a = S.mid.y[3].z local b = S.mid.y[3].z return { a, b, rawequal(S.mid, S.mid), S.mid.nothing == json.null, S.list[4] == json.null }',
    );
    sameAsEager('return { rawget(S, "alpha"), rawget(S.list, 2), rawget(S, "missing"), rawequal(S.mid.y, S.mid.y) }');
    sameAsEager(
      'return { getmetatable(S.list), getmetatable(S.mid.y), getmetatable(S) == nil, getmetatable(S.empty_list) }',
    );
  });

  it('keeps what the script changes in a value it read, and hands out that table again', () => {
    sameAsEager('local t = S.mid t.x = 99 t.added = "new" return { S.mid.x, S.mid.added, rawequal(t, S.mid), S.mid }');
    sameAsEager('local y = S.mid.y y[1] = "changed" local copy = S.mid return copy.y');
    sameAsEager('S.alpha = nil return { S.alpha, rawget(S, "alpha") }');
    sameAsEager('S.fresh = nil S.zeta = S.zeta + 1 return S');
  });

  it('honours metatables the script sets, as on an eager table', () => {
    sameAsEager('setmetatable(S, { __index = function() return "default" end }) return { S.alpha, S.absent }');
    sameAsEager(
      'local log = {} setmetatable(S, { __newindex = function(t, k, v) log[#log + 1] = k rawset(t, k, v) end }) S.alpha = 1 S.fresh = 2 return log',
    );
    sameAsEager('setmetatable(S.mid, { __len = function() return 42 end }) return #S.mid');
  });

  it('works from coroutines and load()ed code', () => {
    sameAsEager(
      'local co = coroutine.wrap(function() coroutine.yield(S.mid.y[2]) return #S.list end) return { co(), co() }',
    );
    sameAsEager('return load("return S_alpha", "x", "t", { S_alpha = S.alpha })()');
  });

  it('orders keys whose text is the same in Lua (lone surrogates) as successive assignments do', () => {
    const state = JSON.parse('{"a":1,"\\ud800":"first","b":2,"\\udc00":"second","\\ufffd":"third"}') as Record<
      string,
      unknown
    >;
    sameAsEager(`${KEYS}return { keys(S), S["\\u{FFFD}"] }`, state);
    sameAsEager(`${KEYS}local v = S["\\u{FFFD}"] return { keys(S), v }`, state);
  });
});

describe('the lazy view and the host', () => {
  it('never writes the value it reads from', () => {
    const state = structuredClone(STATE);
    runLua(
      'state.mid.x = 5 state.list[1] = nil table.insert(state.list, 1) state.zeta = nil state.new = {} for k in pairs(state) do state[k] = nil end return 1',
      { state },
    );
    expect(state).toEqual(STATE);
  });

  it('charges what is read to the budgets, and only that', () => {
    const state = {
      small: 'x',
      big: 'b'.repeat(200_000),
      many: Object.fromEntries(Array.from({ length: 2_000 }, (_, index) => [`k${index}`, index])),
    };
    const budget = { totalStringBytes: 100_000, tableSlots: 1_000 };
    expect(runLua('return #state.small + state.many.k5', { state }, { budget })).toBe(6);
    const strings = captureError(() => runLua('return #state.big', { state }, { budget }));
    expect(strings.code).toBe('LUA_BUDGET');
    expect(strings.details.budget).toBe('string_bytes');
    const slots = captureError(() =>
      runLua('local n = 0 for _ in pairs(state.many) do n = n + 1 end return n', { state }, { budget }),
    );
    expect(slots.code).toBe('LUA_BUDGET');
    expect(slots.details.budget).toBe('table_growth');
    expect(runLua('local n = 0 for _ in pairs(state.many) do n = n + 1 end return n', { state })).toBe(2_000);
  });

  it('converts a key once per call, however often it is read', () => {
    const state = { big: 'b'.repeat(60_000) };
    // Four conversions would pass 200,000 bytes; one is 60,000.
    expect(
      runLua(
        'local n = 0 for i = 1, 4 do n = n + #state.big end return n',
        { state },
        { budget: { totalStringBytes: 100_000 } },
      ),
    ).toBe(240_000);
  });

  it('refuses what is not JSON, and values nested too deep, when the script reaches them', () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 120; level++) deep = { next: deep };
    const error = captureError(() =>
      runLua('local t = state for i = 1, 120 do t = t.next end return t', { state: deep }),
    );
    expect(error.code).toBe('LUA_ERROR');
    expect(error.message).toContain('deeper than 100');
    expect(
      captureError(() => runLua('return pcall(function() return state.f end)', { state: { f: Symbol('s') } })).code,
    ).toBe('LUA_ERROR');
  });
});
