/**
 * The fast path: `npm run test:unit` runs what needs only Node, `test:workerd`, `test:browser` and
 * `test:deno` what needs each runtime (tests/test-groups.mjs, from each file's imports).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper without types
import { classifyTests, testGroup } from '../test-groups.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const classified = classifyTests(ROOT) as Array<{ file: string; runtimes: string[] }>;
const runtimesOf = (file: string) => classified.find((entry) => entry.file === file)?.runtimes;

describe('test groups', () => {
  it('sorts files by the runtime their imports need, through the repository modules they use', () => {
    expect(runtimesOf('tests/deno/deno-kv.test.ts')).toEqual(['deno']);
    expect(runtimesOf('tests/browser/web-demo-app.test.ts')).toEqual(['browser']);
    expect(runtimesOf('tests/worker/worker-routes.test.ts')).toEqual(['workerd']);
    expect(runtimesOf('tests/prolog/prolog-runtimes.test.ts')).toEqual(['browser', 'deno', 'workerd']);
    expect(runtimesOf('tests/build/readme.test.ts')).toEqual([]);
    expect(runtimesOf('tests/build/locked-tree.test.ts')).toEqual([]);
  });

  it('puts every test file in the unit group or in the group of each runtime it needs', () => {
    const unit = new Set(testGroup(ROOT, 'unit') as string[]);
    const groups = Object.fromEntries(
      ['workerd', 'browser', 'deno'].map((name) => [name, new Set(testGroup(ROOT, name) as string[])]),
    );
    for (const { file, runtimes } of classified) {
      expect(unit.has(file), file).toBe(runtimes.length === 0);
      for (const [name, files] of Object.entries(groups))
        expect(files.has(file), `${file} in ${name}`).toBe(runtimes.includes(name));
    }
    expect(unit.size).toBeGreaterThan(100);
    expect(() => testGroup(ROOT, 'chrome')).toThrow(
      /unknown test group "chrome" \(known: unit, workerd, browser, deno\)/,
    );
  });

  it('has a script per group, and `npm test` runs them all', () => {
    const scripts = (
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    for (const group of ['unit', 'workerd', 'browser', 'deno'])
      expect(scripts[`test:${group}`]).toMatch(new RegExp(`vitest run --mode ${group}$`));
    expect(scripts.test).toMatch(/vitest run$/);
    expect(scripts['test:deno']).toContain('node build/ensure-deno.mjs');
  });
});
