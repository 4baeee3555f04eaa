/**
 * The layers of src/ and the direction imports may take, checked on the code itself: a file may
 * import files of its own folder and of any folder in a LOWER row of LAYERS, never upwards and
 * never sideways (another folder of the same row). Any import cycle between files fails too.
 * docs/architecture.md ("Layers") draws the same table; the last test keeps the two equal.
 *
 * Every static import and re-export counts, `import type` included (a type import still ties the
 * two modules' contracts together), and so do dynamic `import('…')` calls and type positions.
 * src/ imports nothing outside src/ but the package manifest (src/version.ts reads the version).
 *
 * The hosts (cli/ and adapters/ so far; worker/ and web-demo/ still import modules of src/, see
 * docs/architecture.md) sit above src/ and reach it only through its public entries
 * (PUBLIC_ENTRIES: what package.json exports), the same way an outside host would.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');

/**
 * Bottom row first. A name is a folder of src/ or a file directly in src/ (without `.ts`). Names
 * in one row are peers that must not import each other.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['core', 'prompts', 'version'],
  ['errors'],
  ['util'],
  ['events'],
  ['schema', 'templates', 'lua', 'storage'],
  ['llm'],
  ['spec'],
  ['actions'],
  ['tools', 'prolog'],
  ['mcp'],
  ['reasoning'],
  ['reflection'],
  ['action-sets'],
  ['builtins'],
  ['graph'],
  ['load-agent-with-scripts'],
  ['engine'],
  ['index', 'testing', 'host', 'host-storage', 'host-scripts', 'host-probe'],
  ['engine-bundle'],
];

/** The folder (or top-level file) of src/ a path belongs to, or undefined outside src/. */
export function unitOf(file: string, src = SRC): string | undefined {
  const relative = path.relative(src, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  const parts = relative.split(path.sep);
  return parts.length === 1 ? parts[0]!.replace(/\.(ts|js)$/, '') : parts[0];
}

const STATIC_IMPORT = /^[ \t]*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/gm;
const SIDE_EFFECT_IMPORT = /^[ \t]*import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every module specifier a source text imports or re-exports (static, type-only, dynamic). */
export function importSpecifiers(text: string): string[] {
  const found: string[] = [];
  for (const pattern of [STATIC_IMPORT, SIDE_EFFECT_IMPORT, DYNAMIC_IMPORT]) {
    for (const match of text.matchAll(pattern)) found.push(match[1]!);
  }
  return found;
}

/** The file a relative specifier names (`./x.js` is the source `./x.ts`, or `./x.tsx`). */
function resolveSpecifier(from: string, specifier: string): string {
  const target = path.resolve(path.dirname(from), specifier);
  if (!target.endsWith('.js')) return target;
  const source = `${target.slice(0, -3)}.ts`;
  return existsSync(source) || !existsSync(`${source}x`) ? source : `${source}x`;
}

export interface ImportEdge {
  from: string;
  to: string;
  specifier: string;
}

/** The relative imports of each file (absolute paths), keyed by file. */
export function importGraph(files: Record<string, string>): Map<string, ImportEdge[]> {
  const graph = new Map<string, ImportEdge[]>();
  for (const [file, text] of Object.entries(files)) {
    const edges = importSpecifiers(text)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => ({ from: file, to: resolveSpecifier(file, specifier), specifier }));
    graph.set(file, edges);
  }
  return graph;
}

/** Imports against the direction of `layers`, as readable lines. */
export function layerViolations(
  graph: Map<string, ImportEdge[]>,
  layers: readonly (readonly string[])[],
  src = SRC,
): string[] {
  const rank = new Map<string, number>();
  layers.forEach((row, index) => {
    for (const name of row) rank.set(name, index);
  });
  const problems: string[] = [];
  const show = (file: string) => path.relative(src, file);
  for (const [file, edges] of graph) {
    const fromUnit = unitOf(file, src);
    const fromRank = fromUnit === undefined ? undefined : rank.get(fromUnit);
    if (fromUnit === undefined || fromRank === undefined) {
      problems.push(`${show(file)}: '${fromUnit}' is in no layer (add it to LAYERS and docs/architecture.md)`);
      continue;
    }
    for (const edge of edges) {
      const toUnit = unitOf(edge.to, src);
      // The package manifest is the one file outside src/ that src/ reads (src/version.ts).
      if (edge.to === path.join(path.dirname(src), 'package.json')) continue;
      if (toUnit === undefined) {
        problems.push(`${show(file)} imports '${edge.specifier}', outside src/`);
        continue;
      }
      if (toUnit === fromUnit) continue;
      const toRank = rank.get(toUnit);
      if (toRank === undefined) problems.push(`${show(file)} imports '${edge.specifier}': '${toUnit}' is in no layer`);
      else if (toRank === fromRank)
        problems.push(`${show(file)} imports '${edge.specifier}': sideways (${fromUnit} and ${toUnit} are peers)`);
      else if (toRank > fromRank)
        problems.push(`${show(file)} imports '${edge.specifier}': upwards (${fromUnit} → ${toUnit})`);
    }
  }
  return problems;
}

/** One cycle per strongly connected component of files (Tarjan), each as a path a → b → … → a. */
export function importCycles(graph: Map<string, ImportEdge[]>, src = SRC): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const next = (file: string) => (graph.get(file) ?? []).map((edge) => edge.to).filter((to) => graph.has(to));
  // Iterative, so a long chain of imports cannot overflow the call stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ file: string; targets: string[]; position: number }> = [];
    const enter = (file: string) => {
      index.set(file, counter);
      low.set(file, counter);
      counter++;
      stack.push(file);
      onStack.add(file);
      work.push({ file, targets: next(file), position: 0 });
    };
    enter(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.position < frame.targets.length) {
        const target = frame.targets[frame.position++]!;
        if (!index.has(target)) enter(target);
        else if (onStack.has(target)) low.set(frame.file, Math.min(low.get(frame.file)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!));
      if (low.get(frame.file) === index.get(frame.file)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.file);
        const selfImport = (graph.get(frame.file) ?? []).some((edge) => edge.to === frame.file);
        if (component.length > 1 || selfImport) components.push(component);
      }
    }
  }
  return components.map((component) =>
    cyclePath(component, next)
      .map((file) => path.relative(src, file))
      .join(' → '),
  );
}

/** A shortest way from the component's first file back to itself, staying inside the component. */
function cyclePath(component: string[], next: (file: string) => string[]): string[] {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const file = queue[head]!;
    for (const target of next(file)) {
      if (!members.has(target)) continue;
      if (target === start) {
        const route = [start];
        for (let step: string | undefined = file; step !== undefined && step !== start; step = cameFrom.get(step))
          route.splice(1, 0, step);
        return [...route, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, file);
        queue.push(target);
      }
    }
  }
  return component;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(full) && !/\.test\.tsx?$/.test(full) && !full.endsWith('.d.ts') ? [full] : [];
  });
}

function readSources(directory = SRC): Record<string, string> {
  return Object.fromEntries(sourceFiles(directory).map((file) => [file, readFileSync(file, 'utf8')]));
}

/** The host folders, each importing src/ only through PUBLIC_ENTRIES. */
export const HOST_FOLDERS = ['cli', 'adapters'] as const;

/** The files of src/ a host may import: the modules behind package.json's exports. */
export const PUBLIC_ENTRIES = [
  'index.ts',
  'testing/index.ts',
  'host.ts',
  'host-storage.ts',
  'host-scripts.ts',
  'host-probe.ts',
] as const;

/** Imports from a host file into src/ that name a module other than a public entry. */
export function deepImports(graph: Map<string, ImportEdge[]>, src = SRC): string[] {
  const allowed = new Set(PUBLIC_ENTRIES.map((entry) => path.join(src, entry)));
  const problems: string[] = [];
  for (const [file, edges] of graph) {
    for (const edge of edges) {
      if (unitOf(edge.to, src) === undefined || allowed.has(edge.to)) continue;
      problems.push(
        `${path.relative(path.dirname(src), file)} imports '${edge.specifier}', not a public entry (${PUBLIC_ENTRIES.join(', ')})`,
      );
    }
  }
  return problems;
}

/** The rows of the "Layers" diagram in docs/architecture.md, bottom row first. */
export function documentedLayers(markdown: string): string[][] {
  const section = /^## Layers\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1];
  const block = section === undefined ? undefined : /```text\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) return [];
  return block
    .split('\n')
    .map((line) => line.split(/\s{2,}/)[0]!.trim())
    .filter((names) => names !== '' && !/^[│▲|^]+$/.test(names))
    .map((names) => names.split(/,\s*/))
    .reverse();
}

describe('import parsing', () => {
  it('finds static, type-only, re-export, side-effect and dynamic imports, not prose', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b/b.js';",
      'import {',
      '  c,',
      '  type D,',
      "} from './c.js';",
      "export { e } from './e.js';",
      "export * from './f.js';",
      "export type { G } from './g.js';",
      "import './side-effect.js';",
      "const h = await import('./h.js');",
      "let i: import('../i/i.js').I;",
      " * a comment that says: import x from 'not-an-import'",
      'const text = \'import y from "also-not"\';',
    ].join('\n');
    expect(importSpecifiers(text).sort()).toEqual(
      ['../b/b.js', '../i/i.js', './a.js', './c.js', './e.js', './f.js', './g.js', './h.js', './side-effect.js'].sort(),
    );
  });

  it('finds an upward and a sideways import and a cycle in a made-up tree', () => {
    const src = '/x/src';
    const files = {
      [`${src}/a/low.ts`]: "import { up } from '../b/high.js';",
      [`${src}/b/high.ts`]: "import { low } from '../a/low.js';\nimport { peer } from '../c/peer.js';",
      [`${src}/c/peer.ts`]: '',
      [`${src}/b/one.ts`]: "import type { Two } from './two.js';",
      [`${src}/b/two.ts`]: "export * from './three.js';",
      [`${src}/b/three.ts`]: "import type { One } from './one.js';",
    };
    const graph = importGraph(files);
    expect(layerViolations(graph, [['a'], ['b', 'c']], src)).toEqual([
      "a/low.ts imports '../b/high.js': upwards (a → b)",
      "b/high.ts imports '../c/peer.js': sideways (b and c are peers)",
    ]);
    expect(importCycles(graph, src).sort()).toEqual([
      'a/low.ts → b/high.ts → a/low.ts',
      'b/one.ts → b/two.ts → b/three.ts → b/one.ts',
    ]);
  });
});

describe('src/ layering', () => {
  const graph = importGraph(readSources());

  it('reads every source file of src/ and their imports', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect([...graph.values()].flat().length).toBeGreaterThan(500);
  });

  it('imports only go down the layers (no upward, no sideways import)', () => {
    expect(layerViolations(graph, LAYERS)).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('docs/architecture.md draws the same layers in the same order', () => {
    const documented = documentedLayers(readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8'));
    expect(documented).toEqual(LAYERS.map((row) => [...row]));
  });
});

describe('hosts import src/ only through its public entries', () => {
  const graph = importGraph(Object.assign({}, ...HOST_FOLDERS.map((folder) => readSources(path.join(ROOT, folder)))));

  it('reads every host folder', () => {
    for (const folder of HOST_FOLDERS)
      expect(
        [...graph.keys()].some((file) => file.startsWith(path.join(ROOT, folder, path.sep))),
        folder,
      ).toBe(true);
    // The hosts do use src/: through the entries.
    expect([...graph.values()].flat().filter((edge) => unitOf(edge.to) !== undefined).length).toBeGreaterThan(30);
  });

  it('no host file imports a module of src/ that is not a public entry', () => {
    expect(deepImports(graph)).toEqual([]);
  });

  it('finds a deep import, a dynamic one included, in a made-up host', () => {
    const src = '/x/src';
    const files = {
      '/x/cli/a.ts': "import { runAgent } from '../src/host.js';\nimport { x } from '../src/graph/run-agent.js';",
      '/x/adapters/b.ts':
        "const probe = await import('../src/llm/probe.js');\nconst lazy = await import('../src/host-probe.js');",
    };
    expect(deepImports(importGraph(files), src)).toEqual([
      "cli/a.ts imports '../src/graph/run-agent.js', not a public entry (index.ts, testing/index.ts, host.ts, host-storage.ts, host-scripts.ts, host-probe.ts)",
      "adapters/b.ts imports '../src/llm/probe.js', not a public entry (index.ts, testing/index.ts, host.ts, host-storage.ts, host-scripts.ts, host-probe.ts)",
    ]);
  });
});
