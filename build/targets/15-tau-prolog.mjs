// Builds build/generated/tau-prolog.js (imported as `#prolog-vm`, see package.json "imports"): one
// isomorphic ESM of tau-prolog's core and lists modules. The host branches are cut at the source:
// the Node flag is always false (no fs, readline or process streams), `require` and `process`
// become names that throw, so nothing in the bundle can reach the host even if a branch were
// taken. The sandbox (src/prolog/) also removes file, stream and halt predicates from sessions.
// Generated and git-ignored, like the Lua VM (build/targets/10-fengari.mjs).
import * as esbuild from 'esbuild';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FORBIDDEN_CODE } from '../fengari-transform.mjs';

const entry = `
import pl from 'tau-prolog/modules/core.js';
import loadLists from 'tau-prolog/modules/lists.js';
import { setWorkMeter } from 'tea-work-meter';
loadLists(pl);
export { pl, setWorkMeter };
`;

// The work meter: every term traversal (unify, apply, rename, clone, compare, print) ticks it,
// so work done inside one built-in (unifying two huge shared terms, copying a cyclic term) is
// counted and stopped by the sandbox (src/prolog/), not only resolution steps.
const workMeter = `
let meter = null;
export function setWorkMeter(fn) { meter = fn; }
export function tick() { if (meter !== null) meter(false); }
export function alloc() { if (meter !== null) meter(true); }
`;

/** Each edit must match exactly `count` times, or the build fails (a tau upgrade moved code). */
const edits = [
  {
    description: 'Node detection is always false',
    from: "typeof process !== 'undefined' && !process.browser",
    to: 'false',
    count: 1,
  },
  {
    description: 'no host global object (only the js module, not bundled, reads it)',
    from: 'nodejs_flag ? global : window',
    to: '{}',
    count: 1,
  },
  {
    description: 'a comparison with a new object is always true (tau bug, esbuild warns)',
    from: 'this.attrs[variable] !== {}',
    to: 'true',
    count: 1,
  },
  { description: 'no host modules', from: /\brequire\(/g, to: '__teaNoHost(', count: 4 },
  { description: 'no process object', from: /\bprocess\./g, to: '__teaNoHost("process").', count: 8 },
  // Every step walks up its ancestors while they hold the selected goal, to find the clause it
  // runs in (its module context): after a long computation that walk is as long as it, so it is
  // metered (not capped: the module context must stay right).
  {
    description: 'the ancestor walk of every step ticks the work meter',
    from: 'while(level.parent !== null && level.parent.goal.search(atom))',
    to: 'while(level.parent !== null && (__teaTick(), level.parent.goal.search(atom)))',
    count: 1,
  },
  {
    description: "cut's walk up to its clause ticks the work meter",
    from: 'while( parent_cut.parent !== null && parent_cut.parent.goal.search( atom ) ) {',
    to: 'while( parent_cut.parent !== null && parent_cut.parent.goal.search( atom ) ) { __teaTick();',
    count: 1,
  },
  {
    description: "cut's scan of the choice points ticks the work meter",
    from: 'while( node !== null && node !== parent_cut.parent ) {',
    to: 'while( node !== null && node !== parent_cut.parent ) { __teaTick();',
    count: 1,
  },
  // assertz re-indexed every clause of the predicate per call (quadratic in an assert flood);
  // an appended clause needs only its own index entry, which is what the rebuild ends with.
  {
    description: 'assertz indexes only the new clause',
    from: /get_module\.rules\[head\.indicator\]\.push\(new Rule\(head, body, true\)\);(\s*)get_module\.update_indices_predicate\(head\.indicator\);/g,
    to: 'var __teaRule = new Rule(head, body, true); get_module.rules[head.indicator].push(__teaRule);$1get_module.add_index_predicate(__teaRule);',
    count: 1,
  },
  {
    description: 'a full re-index (asserta, retract) ticks the work meter per clause',
    from: /for\(var i = 0; i < this\.rules\[indicator\]\.length; i\+\+\) \{/g,
    to: 'for(var i = 0; i < this.rules[indicator].length; i++) { __teaTick();',
    count: 1,
  },
  ...[
    'search = function( expr )',
    'toString = function( options, priority, from )',
    'variables = function()',
    'equals = function( obj )',
    'compare = function( obj )',
  ].map((signature) => ({
    description: `Term.prototype.${signature} ticks the work meter`,
    from: `Term.prototype.${signature} {`,
    to: `Term.prototype.${signature} { __teaTick();`,
    count: 1,
  })),
  // These build a new term node per call: counted as allocations too (the memory budget).
  ...['apply = function( subs )', 'rename = function( thread )', 'clone = function()'].map((signature) => ({
    description: `Term.prototype.${signature} counts an allocation`,
    from: `Term.prototype.${signature} {`,
    to: `Term.prototype.${signature} { __teaAlloc();`,
    count: 1,
  })),
  // A substitution is copied, applied, filtered, printed or compared link by link at every step
  // that touches it; a query binding many variables (maplist over a long list) made each step
  // walk every link bound so far without a tick: work no budget saw, for minutes.
  {
    description: "every walk over a substitution's links ticks the work meter per link",
    from: /if\(!this\.links\.hasOwnProperty\((\w+)\)\) continue;/g,
    to: '__teaTick(); if(!this.links.hasOwnProperty($1)) continue;',
    count: 6,
  },
  // apply and rename walk a list in a loop of their own (not one call per cell): each element
  // ticks, or applying bindings to the rest of a long list at every step of maplist/3 was
  // quadratic work the meter saw once per step (minutes under the default budgets). Ticks, not
  // allocations: the copies' cells are not counted as live memory (docs/prolog.md "Memory").
  {
    description: 'apply and rename of a list tick the work meter per element',
    from: 'arr.push(app);',
    to: '__teaTick(); arr.push(app);',
    count: 2,
  },
  {
    description: 'unify ticks the work meter per pair',
    from: /while\(left\.length > 0\) \{(\s*)var s = left\.pop\(\);/g,
    to: 'while(left.length > 0) { __teaTick();$1var s = left.pop();',
    count: 1,
  },
];
// tau assigns these without declaring them (sloppy-mode globals); an ES module is strict.
const undeclared = [
  'tau_file_system',
  'tau_user_input',
  'tau_user_output',
  'tau_user_error',
  'nodejs_file_system',
  'nodejs_user_input',
  'nodejs_user_output',
  'nodejs_user_error',
];
const prelude =
  `var ${undeclared.join(', ')};\n` +
  "import { tick as __teaTick, alloc as __teaAlloc } from 'tea-work-meter';\n" +
  'function __teaNoHost(name) { throw new Error("tau-prolog: no host access in the tea-edge sandbox (" + name + ")"); }\n';

function tauPlugin() {
  return {
    name: 'tau-prolog-hostless',
    setup(build) {
      build.onResolve({ filter: /^tea-work-meter$/ }, () => ({ path: 'tea-work-meter', namespace: 'tea-work-meter' }));
      build.onLoad({ filter: /.*/, namespace: 'tea-work-meter' }, () => ({ contents: workMeter, loader: 'js' }));
      build.onLoad({ filter: /[\\/]tau-prolog[\\/]modules[\\/]core\.js$/ }, async (args) => {
        let text = await readFile(args.path, 'utf8');
        for (const edit of edits) {
          const found =
            typeof edit.from === 'string' ? text.split(edit.from).length - 1 : (text.match(edit.from) ?? []).length;
          if (found !== edit.count)
            throw new Error(`tau-prolog build: "${edit.description}" expected ${edit.count} match(es), found ${found}`);
          text = typeof edit.from === 'string' ? text.split(edit.from).join(edit.to) : text.replace(edit.from, edit.to);
        }
        return { contents: prelude + text, loader: 'js' };
      });
    },
  };
}

export default async function build({ root }) {
  const outfile = path.join(root, 'build/generated/tau-prolog.js');
  const version = JSON.parse(await readFile(path.join(root, 'node_modules/tau-prolog/package.json'), 'utf8')).version;
  await mkdir(path.dirname(outfile), { recursive: true });
  const result = await esbuild.build({
    stdin: { contents: entry, resolveDir: root, sourcefile: 'tau-prolog-entry.js', loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['main'],
    target: 'es2022',
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
    write: false,
    outfile,
    banner: {
      js: `/*! tau-prolog ${version}, patched by tea-edge. BSD-3-Clause License. Copyright (c) José Antonio Riaza Valverde. Full notice: THIRD_PARTY_NOTICES.md */\n// GENERATED by build/targets/15-tau-prolog.mjs. Do not edit and do not commit.`,
    },
    plugins: [tauPlugin()],
  });
  const code = result.outputFiles[0].text;
  for (const pattern of FORBIDDEN_CODE) {
    if (pattern.test(code))
      throw new Error(`tau-prolog build: the output contains ${pattern} (code generation or a Node API)`);
  }
  await writeFile(outfile, code);
}
