// Source rewrite of the raw `fengari` package (node_modules/fengari/src) into an isomorphic,
// sandbox-ready VM. Two kinds of edits:
//   1. portability: strip the Node-only branches (`typeof process`, `process.env.FENGARICONF`),
//      the import-time `(0, eval)('this')`, and the `lualib.js` import that drags in the
//      `package`/`io`/`debug` libraries (which contain `Function(` and `require`);
//   2. budget hooks: calls into a per-state object `g.teaBudget` (installed by src/lua/) at every
//      place where one VM instruction can do unbounded work — string concatenation, string.rep,
//      luaL_Buffer growth, the lexer buffer, string creation, table growth, the pattern matcher,
//      table library loops — plus the stack limits, and a rule that any JavaScript exception
//      (the budget hooks throw one) passes through Lua's protected calls: pcall, xpcall and
//      coroutines cannot swallow it.
// Every edit must match exactly as often as declared, or the build fails: a fengari upgrade
// cannot silently drop a budget. The hook contract is documented in src/lua/budget-meter.ts.

/** `const tea = <g>.teaBudget; if (tea !== null && tea.armed) tea.<call>;` */
const hook = (globalState, call) =>
  `{ const tea = ${globalState}.teaBudget; if (tea !== null && tea.armed) tea.${call}; }`;

/**
 * Charges `count` values pushed or moved by one instruction (multiple results, varargs,
 * string.byte): a quarter instruction each, past 64 values so ordinary calls pay nothing.
 */
const pushCost = (state, count) =>
  `if (${count} > 64) ${hook(`${state}.l_G`, `chargeInstructions(${state}, ${count} >> 2)`)}`;

/** Edits applied to every fengari file, any number of times (zero included). */
const everywhere = [
  { description: 'FENGARICONF environment lookup', find: /process\.env\.FENGARICONF/g, replace: 'undefined' },
  { description: 'Node detection', find: /typeof process\b/g, replace: '"undefined"' },
  { description: 'import-time indirect eval', find: /\(0,\s*eval\)\('this'\)/g, replace: 'globalThis' },
];

/**
 * Edits per file: `find` is an exact string that must occur `count` times (default 1).
 * `replace` receives the matched text.
 */
const fileEdits = {
  'luaconf.js': [
    // A smaller Lua stack: deep recursion fails in ~0.1 s instead of ~2 s and +200 MB.
    {
      description: 'LUAI_MAXSTACK',
      find: 'const LUAI_MAXSTACK = conf.LUAI_MAXSTACK || 1000000;',
      replace: () => 'const LUAI_MAXSTACK = 100000;',
    },
  ],
  'defs.js': [
    // Speed only: copying a byte array with slice() instead of the generic Uint8Array.from.
    {
      description: 'luastring_from copy',
      find: 'luastring_from = Uint8Array.from.bind(Uint8Array);',
      replace: () =>
        'luastring_from = function(a) { return a instanceof Uint8Array ? a.slice() : Uint8Array.from(a); };',
    },
  ],
  'lstate.js': [
    {
      description: 'global_State.teaBudget field',
      find: 'this.atnativeerror = null;',
      replace: (text) => `${text}\n        this.teaBudget = null; /* tea-edge: budget meter */`,
    },
    // A coroutine costs about as much memory as a 40-entry table (its initial stack).
    {
      description: 'coroutine creation count',
      find: 'const lua_newthread = function(L) {',
      replace: (text) => `${text}\n    ${hook('L.l_G', 'countTableSlots(L, 40)')}`,
    },
  ],
  'lstrlib.js': [
    {
      description: 'lualib import (lstrlib)',
      find: "const lualib = require('./lualib.js');",
      replace: () => 'const lualib = { lua_assert: function() {} };',
    },
    {
      description: 'string.rep size check',
      find: 'let totallen = n * l + (n - 1) * lsep;',
      replace: (text) =>
        `${text}\n        if (totallen === 0) { lua_pushliteral(L, ""); return 1; }\n        ${hook('L.l_G', 'checkString(L, totallen)')}`,
    },
    // One step per pattern item matched (match() walks literal runs in a loop, not by recursion).
    {
      description: 'pattern step per pattern item',
      find: '    while (gotoinit || gotodefault) {\n        gotoinit = false;',
      replace: (text) => `${text}\n        ${hook('ms.L.l_G', 'countPatternSteps(ms.L, 1)')}`,
    },
    // Subject and pattern scans outside match(): plain find, nospecials, gsub/gmatch set-up.
    {
      description: 'find/gmatch scan cost',
      count: 2,
      find: '    let ls = s.length;\n    let lp = p.length;',
      replace: (text) => `${text}\n    ${hook('L.l_G', 'countPatternSteps(L, (ls + lp) >> 5)')}`,
    },
    {
      description: 'gsub scan cost',
      find: '    let lp = p.length;\n    let lastmatch = null;',
      replace: (text) => `${text}\n    ${hook('L.l_G', 'countPatternSteps(L, (srcl + lp) >> 5)')}`,
    },
    {
      description: 'pattern steps of max_expand',
      find: '    while (singlematch(ms, s + i, p, ep))\n        i++;',
      replace: (text) => `${text}\n    ${hook('ms.L.l_G', 'countPatternSteps(ms.L, i)')}`,
    },
    // Speed only: fill string.rep's result by doubling instead of one copy per repetition.
    {
      description: 'string.rep fill',
      find: [
        '        let pi = 0;',
        '        while (n-- > 1) {  /* first n-1 copies (followed by separator) */',
        '            p.set(s, pi);',
        '            pi += l;',
        "            if (lsep > 0) {  /* empty 'memcpy' is not that cheap */",
        '                p.set(sep, pi);',
        '                pi += lsep;',
        '            }',
        '        }',
        '        p.set(s, pi);  /* last copy (not followed by separator) */',
      ].join('\n'),
      replace: () =>
        [
          '        p.set(s, 0);',
          '        if (n > 1 && lsep > 0) p.set(sep, l);',
          '        for (let filled = n > 1 ? l + lsep : l; filled < totallen; filled *= 2)',
          '            p.copyWithin(filled, 0, Math.min(filled, totallen - filled));',
        ].join('\n'),
    },
    {
      description: 'pattern steps of %b',
      find: '        let cont = 1;\n        while (++s < ms.src_end) {',
      replace: (text) => `${text}\n            ${hook('ms.L.l_G', 'countPatternSteps(ms.L, 1)')}`,
    },
    {
      description: 'pattern steps of back-references',
      find: '    let len = ms.capture[l].len;',
      replace: (text) => `${text}\n    ${hook('ms.L.l_G', 'countPatternSteps(ms.L, len)')}`,
    },
    {
      description: 'plain find signature',
      find: 'const find_subarray = function(arr, subarr, from_index) {',
      replace: () => 'const find_subarray = function(arr, subarr, from_index, L) {',
    },
    {
      description: 'plain find steps',
      find: '        if (luastring_eq(arr.subarray(i, i+sl), subarr))',
      replace: (text) => `        ${hook('L.l_G', 'countPatternSteps(L, sl)')}\n${text}`,
    },
    // fengari bug: the argument number is missing, so string.char(256) threw a raw TypeError.
    {
      description: 'string.char range check',
      find: 'luaL_argcheck(L, c >= 0 && c <= 255, "value out of range");',
      replace: () => 'luaL_argcheck(L, c >= 0 && c <= 255, i, "value out of range");',
    },
    // string.format('%.3s', s) scanned (strlen) and decoded all of s, one character at a time,
    // for at most 99 characters: charge the scan, and decode only the first 400 bytes (99
    // characters at most 4 bytes each), cut at a character boundary.
    {
      description: 'string.format %s with modifiers cost',
      find: '                        luaL_argcheck(L, s.length === strlen(s), arg, "string contains zeros");',
      replace: (text) => `                        ${hook('L.l_G', 'chargeInstructions(L, s.length >> 5)')}\n${text}`,
    },
    {
      description: 'string.format %s with precision decodes a prefix',
      find: 'luaL_addstring(b, to_luastring(sprintf(String.fromCharCode(...form), to_jsstring(s))));',
      replace: () =>
        'let end = s.length > 400 ? 400 : s.length; while (end < s.length && end > 0 && (s[end] & 0xC0) === 0x80) end--;\n' +
        '                            luaL_addstring(b, to_luastring(sprintf(String.fromCharCode(...form), to_jsstring(s.subarray(0, end)))));',
    },
    {
      description: 'plain find call',
      find: 'find_subarray(s.subarray(init - 1), p, 0)',
      replace: () => 'find_subarray(s.subarray(init - 1), p, 0, L)',
    },
    // string.byte(s, 1, -1) pushes one value per byte in one instruction.
    {
      description: 'string.byte push cost',
      find: '    let n = (pose - posi) + 1;\n    luaL_checkstack(L, n, "string slice too long");\n    for (let i = 0; i < n; i++)',
      replace: (text) => text.replace('\n    luaL_checkstack', `\n    ${pushCost('L', 'n')}\n    luaL_checkstack`),
    },
  ],
  'ltablib.js': [
    {
      description: 'lualib import (ltablib)',
      find: "const lualib = require('./lualib.js');",
      replace: () => 'const lualib = { lua_assert: function() {} };',
    },
  ],
  'lvm.js': [
    {
      description: 'concatenation size check',
      find: '            let buff = new Uint8Array(tl);',
      replace: (text) => `            ${hook('L.l_G', 'checkString(L, tl)')}\n${text}`,
    },
    // Comparing long strings is one instruction but scans them: one instruction per 32 bytes.
    {
      description: 'string equality cost',
      find: '            return luaS_eqlngstr(t1.tsvalue(), t2.tsvalue()) ? 1 : 0;',
      replace: (text) =>
        `            if (t1.vslen() > 256) ${hook('L.l_G', 'chargeInstructions(L, t1.vslen() >> 5)')}\n${text}`,
    },
    {
      description: 'string ordering cost',
      count: 2,
      find: '    else if (l.ttisstring() && r.ttisstring())',
      replace: (text) =>
        `    if (l.ttisstring() && r.ttisstring() && l.vslen() + r.vslen() > 256) ${hook('L.l_G', 'chargeInstructions(L, (l.vslen() + r.vslen()) >> 5)')}\n${text}`,
    },
    {
      description: 'vararg copy cost',
      find: '                if (b < 0) {\n                    b = n;  /* get all var. arguments */',
      replace: (text) => `${text}\n                    ${pushCost('L', 'n')}`,
    },
  ],
  'lauxlib.js': [
    {
      description: 'luaL_Buffer growth check',
      find: '        let newsize = Math.max(B.b.length * 2, newend);  /* double buffer size */',
      replace: (text) => `        ${hook('B.L.l_G', 'checkString(B.L, newend)')}\n${text}`,
    },
  ],
  'lzio.js': [
    {
      description: 'lexer buffer growth check',
      find: 'const luaZ_resizebuffer = function(L, buff, size) {',
      replace: (text) => `${text}\n    ${hook('L.l_G', 'checkString(L, size)')}`,
    },
    // Parsing costs far more than one instruction per byte: `load` is charged 4 per byte read.
    // The function it builds keeps 10-50 bytes of objects per source byte: one table slot per 4.
    {
      description: 'parse cost',
      find: '    let size = buff.length;\n    if (size === 0)\n        return EOZ;',
      replace: (text) =>
        `${text}\n    ${hook('z.L.l_G', 'chargeInstructions(z.L, size * 4)')}\n    ${hook('z.L.l_G', 'countTableSlots(z.L, size >> 2)')}`,
    },
  ],
  'lstring.js': [
    {
      description: 'string creation count',
      find: '    lua_assert(str instanceof Uint8Array);\n    return new TString(L, str);',
      replace: (text) => `    ${hook('L.l_G', 'countString(L, str.length)')}\n${text}`,
    },
    // fengari bug, and memory no budget counted: the table key of a string was built one hex
    // digit run per byte ('|' + byte.toString(16) ...), so "\1\0" and "\16" were the same key, and
    // a 1 MB key took a second and ~28 MB of rope. Now one character per byte (injective), built
    // in chunks: as many bytes of memory as the string, in milliseconds.
    {
      description: 'string table key',
      find: '    let s = "|";\n    for (let i=0; i<len; i++)\n        s += str[i].toString(16);\n    return s;',
      replace: () =>
        [
          '    let s = "|";',
          '    for (let i = 0; i < len; i += 8192)',
          '        s += String.fromCharCode.apply(null, str.subarray(i, Math.min(len, i + 8192)));',
          '    return s;',
        ].join('\n'),
    },
  ],
  'ltable.js': [
    // A new table (two Maps) weighs about as much as four entries.
    {
      description: 'table creation count',
      find: '        this.id = L.l_G.id_counter++;',
      replace: (text) => `${text}\n        this.l_G = L.l_G;\n        ${hook('L.l_G', 'countTableSlots(L, 4)')}`,
    },
    {
      description: 'table entry count',
      find: 'const add = function(t, hash, key, value) {',
      replace: (text) => `${text}\n    ${hook('t.l_G', 'countTableSlots(null, 1)')}`,
    },
    // Lazy tables (src/lua/lazy-table.ts): a table may hold `lazy`, the JavaScript value its
    // entries still come from. A raw read of a missing key asks it for that one entry; a raw
    // write tells it the key is settled; `next` and the length (`#`, rawlen, table library)
    // have it convert the rest first, in the original order. No other code reads entries.
    {
      description: 'lazy table field',
      find: '        this.flags = ~0;',
      replace: (text) => `${text}\n        this.lazy = void 0; /* tea-edge: entries still in JavaScript */`,
    },
    {
      description: 'lazy table read',
      find: '    let v = t.strong.get(hash);\n    return v ? v.value : lobject.luaO_nilobject;',
      replace: () =>
        '    let v = t.strong.get(hash);\n    if (v === undefined && t.lazy !== void 0) v = t.lazy.fetch(t, hash);\n    return v ? v.value : lobject.luaO_nilobject;',
    },
    {
      description: 'lazy table integer write',
      find: '    let hash = key; /* table_hash known result */',
      replace: (text) => `${text}\n    if (t.lazy !== void 0) t.lazy.write(t, hash, value.ttisnil());`,
    },
    {
      description: 'lazy table write',
      find: '    let hash = table_hash(L, key);\n    if (value.ttisnil()) { /* delete */',
      replace: (text) => text.replace('\n', '\n    if (t.lazy !== void 0) t.lazy.write(t, hash, value.ttisnil());\n'),
    },
    {
      description: 'lazy table length',
      find: 'const luaH_getn = function(t) {',
      replace: (text) => `${text}\n    if (t.lazy !== void 0) { const n = t.lazy.length(t); if (n >= 0) return n; }`,
    },
    {
      description: 'lazy table traversal',
      find: 'const luaH_next = function(L, table, keyI) {',
      replace: (text) => `${text}\n    if (table.lazy !== void 0) table.lazy.complete(table);`,
    },
    {
      description: 'lazy table entry insertion',
      find: 'module.exports.Table        = Table;',
      replace: (text) =>
        `${text}\nmodule.exports.teaInsert = function(t, hash, key, value) { add(t, hash, key, value); return t.strong.get(hash); };`,
    },
  ],
  'lobject.js': [
    // A closure weighs about as much as a table entry; closures chained through upvalues hold
    // memory that no table counts.
    {
      description: 'Lua closure creation count',
      find: '    constructor(L, n) {\n        this.id = L.l_G.id_counter++;\n\n        this.p = null;',
      replace: (text) => text.replace('++;', `++;\n        ${hook('L.l_G', 'countTableSlots(L, 1 + (n >> 3))')}`),
    },
    {
      description: 'C closure creation count',
      find: '    constructor(L, f, n) {\n        this.id = L.l_G.id_counter++;',
      replace: (text) => `${text}\n        ${hook('L.l_G', 'countTableSlots(L, 1 + n)')}`,
    },
    // A numeral longer than 200 bytes is not a number (Lua's own L_MAXLENNUM): string → number
    // coercion of a 1 MiB string would otherwise decode all of it on every arithmetic operation.
    {
      description: 'numeral length cap',
      find: 'const luaO_str2num = function(s, o) {',
      replace: (text) => `${text}\n    if (s.length > 200) return 0;`,
    },
  ],
  'lbaselib.js': [
    {
      description: 'numeral length cap (tonumber with base)',
      find: 'const b_str2int = function(s, base) {',
      replace: (text) => `${text}\n    if (s.length > 200) return null;`,
    },
  ],
  'lutf8lib.js': [
    // utf8.len and utf8.offset scan the string; utf8.codepoint pushes one value per character.
    {
      description: 'utf8.len scan cost',
      find: '    let n = 0;\n    let s = luaL_checkstring(L, 1);',
      replace: (text) => `${text}\n    ${hook('L.l_G', 'chargeInstructions(L, s.length >> 5)')}`,
    },
    {
      description: 'utf8.offset scan cost',
      find: '    let s = luaL_checkstring(L, 1);\n    let n = luaL_checkinteger(L, 2);',
      replace: (text) => `${text}\n    ${hook('L.l_G', 'chargeInstructions(L, s.length >> 5)')}`,
    },
    {
      description: 'utf8.codepoint push cost',
      find: '    let n = (pose - posi) + 1;\n    luaL_checkstack(L, n, "string slice too long");\n    n = 0;',
      replace: (text) => text.replace('\n    luaL_checkstack', `\n    ${pushCost('L', 'n')}\n    luaL_checkstack`),
    },
  ],
  'loslib.js': [
    // os.date formats with JavaScript Dates, several microseconds per format byte (`%c`): a
    // 400 KB format took two seconds in one instruction. Charged 64 instructions per byte.
    {
      description: 'os.date format cost',
      find: '    let s = luaL_optlstring(L, 1, "%c");\n    let stm',
      replace: (text) =>
        text.replace('\n    let stm', `\n    ${hook('L.l_G', 'chargeInstructions(L, s.length * 64)')}\n    let stm`),
    },
  ],
  'lapi.js': [
    {
      description: 'no bytecode dumper',
      find: "const { luaU_dump } = require('./ldump.js');",
      replace: () => "const luaU_dump = function() { throw new Error('string.dump is not supported'); };",
    },
    // table.insert/remove/move/concat/unpack/sort loop through lua_geti/lua_seti, driven by a
    // length the script controls (`__len`); each access costs one instruction.
    {
      description: 'lua_seti work',
      find: 'const lua_seti = function(L, idx, n) {',
      replace: (text) => `${text}\n    ${hook('L.l_G', 'chargeInstructions(L, 1)')}`,
    },
    {
      description: 'lua_geti work',
      find: 'const lua_geti = function(L, idx, n) {',
      replace: (text) => `${text}\n    ${hook('L.l_G', 'chargeInstructions(L, 1)')}`,
    },
  ],
  'ldo.js': [
    // Binary chunks are refused before this is reached (mode 't' everywhere): leave the undumper
    // out of the bundle, so bytecode cannot be loaded even by mistake.
    {
      description: 'no bytecode loader',
      find: "const lundump  = require('./lundump.js');",
      replace: () =>
        "const lundump = { luaU_undump: function() { throw new Error('binary chunks are not supported'); } };",
    },
    {
      description: 'JavaScript exceptions pass through protected calls',
      find: '    } catch (e) {\n        if (lj.status === LUA_OK) {\n            /* error was not thrown via luaD_throw, i.e. it is a JS error */',
      replace: (text) =>
        text.replace(
          '    } catch (e) {\n',
          '    } catch (e) {\n        if (lj.status === LUA_OK && L.l_G.teaBudget !== null) { /* tea-edge: never swallowed */\n            L.errorJmp = lj.previous;\n            L.nCcalls = oldnCcalls;\n            throw e;\n        }\n',
        ),
    },
    {
      description: 'Lua stack overflow',
      find: '            luaD_reallocstack(L, ERRORSTACKSIZE);\n            ldebug.luaG_runerror(L, to_luastring("stack overflow", true));',
      replace: (text) => `            if (L.l_G.teaBudget !== null) L.l_G.teaBudget.stackOverflow(L);\n${text}`,
    },
    {
      description: 'JS call depth overflow',
      find: 'const stackerror = function(L) {',
      replace: (text) => `${text}\n    if (L.l_G.teaBudget !== null) L.l_G.teaBudget.stackOverflow(L);`,
    },
    // Stack slots hold memory (a parked coroutine keeps its stack): growth is charged to the
    // table budget, shrinking refunds it.
    {
      description: 'stack growth count',
      find: 'const luaD_reallocstack = function(L, newsize) {',
      replace: (text) => `${text}\n    ${hook('L.l_G', 'resizeStack(L, L.stack.length, newsize)')}`,
    },
    // Results moved (and the slots they leave cleared) by one return: select('#'), table.unpack…
    {
      description: 'call results cost',
      find: 'const moveresults = function(L, firstResult, res, nres, wanted) {',
      replace: (text) => `${text}\n    ${pushCost('L', 'nres')}`,
    },
    // One instruction counter across coroutines: a resumed thread continues the resumer's count.
    {
      description: 'resume takes the instruction count',
      find: '    L.nny = 0;  /* allow yields */',
      replace: (text) => `${text}\n    if (from && L.l_G.teaBudget !== null) L.hookcount = from.hookcount;`,
    },
    {
      description: 'resume gives the instruction count back',
      find: "    L.nny = oldnny;  /* restore 'nny' */",
      replace: (text) => `${text}\n    if (from && L.l_G.teaBudget !== null) from.hookcount = L.hookcount;`,
    },
  ],
};

/** The files whose edits must all have been applied by the end of a build. */
export const patchedFiles = Object.keys(fileEdits);

/**
 * Applies the edits for one fengari source file. Throws when a declared edit does not match
 * exactly as often as declared. Returns the new source.
 */
export function patchFengariSource(fileName, source) {
  let patched = source;
  for (const edit of everywhere) patched = patched.replace(edit.find, edit.replace);
  for (const edit of fileEdits[fileName] ?? []) {
    const expected = edit.count ?? 1;
    const found = patched.split(edit.find).length - 1;
    if (found !== expected) {
      throw new Error(
        `fengari-transform: "${edit.description}" expected ${expected} match(es) in ${fileName}, found ${found}. ` +
          'fengari changed: update build/fengari-transform.mjs so no budget is lost.',
      );
    }
    patched = patched.split(edit.find).join(edit.replace(edit.find));
  }
  return patched;
}

/** esbuild plugin: rewrites every file under fengari/src and records which were seen. */
export function fengariEsbuildPlugin(seen = new Set()) {
  return {
    name: 'fengari-isomorphic',
    setup(build) {
      build.onLoad({ filter: /[\\/]fengari[\\/]src[\\/][^\\/]+\.js$/ }, async (args) => {
        const { readFile } = await import('node:fs/promises');
        const fileName = args.path.split(/[\\/]/).pop();
        seen.add(fileName);
        return { contents: patchFengariSource(fileName, await readFile(args.path, 'utf8')), loader: 'js' };
      });
    },
  };
}

/** Code generation from strings, in any spelling esbuild leaves behind. */
export const FORBIDDEN_CODE = [/\beval\s*\(/, /\bnew\s+Function\b/, /\bFunction\s*\(/, /\brequire\s*\(/, /\bprocess\./];
