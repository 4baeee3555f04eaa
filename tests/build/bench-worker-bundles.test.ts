/**
 * `tea-edge bench` with no suite runs every suite; a bench that bundles a worker entry itself
 * (not through the worker build, which resolves the build's `virtual:` modules) must leave each
 * `virtual:` module the entry imports external, or esbuild cannot resolve it and the suite fails.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('bench bundles of the worker entries', () => {
  it('leave every virtual module of the entry external', () => {
    const benches = readdirSync(path.join(ROOT, 'bench')).filter((file) => file.endsWith('.ts'));
    let checked = 0;
    for (const bench of benches) {
      const text = read(`bench/${bench}`);
      for (const entry of ['worker/cloudflare/cloudflare.ts', 'worker/deno/deno.ts']) {
        if (!text.includes(`'${entry}'`)) continue;
        const virtual = [...read(entry).matchAll(/from '(virtual:[\w-]+)'/g)].map((match) => match[1]!);
        expect(virtual.length).toBeGreaterThan(0);
        for (const name of virtual)
          expect(text, `${bench} bundles ${entry}, which imports ${name}`).toContain(`'${name}'`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});
