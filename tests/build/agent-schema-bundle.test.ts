/**
 * The bundles carry the agent schema without its annotations (build/shared.mjs): the copy an
 * esbuild bundle imports must name every property the source schema names and judge every agent
 * file the same, descriptions and titles being all it lacks.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Validator } from '@cfworker/json-schema';
import * as esbuild from 'esbuild';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCE = JSON.parse(readFileSync(path.join(ROOT, 'src/spec/agent-schema.json'), 'utf8')) as Record<
  string,
  unknown
>;
let bundled: Record<string, unknown>;
let directory: string;

beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'tea-schema-'));
  const outfile = path.join(directory, 'schema.mjs');
  await esbuild.build(
    baseOptions({
      stdin: { contents: "export { default } from './src/spec/agent-schema.json';", resolveDir: ROOT, loader: 'ts' },
      outfile,
      platform: 'node',
    }),
  );
  bundled = ((await import(pathToFileURL(outfile).href)) as { default: Record<string, unknown> }).default;
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Every key of every `properties` map, with where it is. */
function propertyNames(schema: unknown, at = '#', names: string[] = []): string[] {
  if (Array.isArray(schema))
    schema.forEach((item, index) => {
      propertyNames(item, `${at}/${index}`, names);
    });
  else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && value !== null && typeof value === 'object')
        names.push(...Object.keys(value).map((name) => `${at}/properties/${name}`));
      propertyNames(value, `${at}/${key}`, names);
    }
  }
  return names;
}

function annotations(schema: unknown): number {
  if (Array.isArray(schema)) return schema.reduce((sum: number, item) => sum + annotations(item), 0);
  if (schema === null || typeof schema !== 'object') return 0;
  return Object.entries(schema).reduce(
    (sum, [key, value]) =>
      sum + ((key === 'description' || key === 'title') && typeof value === 'string' ? 1 : 0) + annotations(value),
    0,
  );
}

describe('the agent schema in the bundles', () => {
  it('has no descriptions or titles, and every property of the source (a field called description too)', () => {
    expect(annotations(SOURCE)).toBeGreaterThan(10);
    expect(annotations(bundled)).toBe(0);
    expect(propertyNames(bundled)).toEqual(propertyNames(SOURCE));
    expect(propertyNames(SOURCE).some((name) => name.endsWith('/properties/description'))).toBe(true);
    expect(JSON.stringify(bundled).length).toBeLessThan(JSON.stringify(SOURCE).length * 0.8);
  });

  it('judges the example agents and broken variants of them as the source schema does', () => {
    const files = readdirSync(path.join(ROOT, 'examples')).filter((file) => file.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(10);
    const whole = new Validator(SOURCE as object, '7', false);
    const lean = new Validator(bundled as object, '7', false);
    for (const file of files) {
      const agent = parse(readFileSync(path.join(ROOT, 'examples', file), 'utf8')) as Record<string, unknown>;
      const variants = [
        agent,
        { ...agent, description: 'an agent' },
        { ...agent, descripton: 'typo' },
        { ...agent, nodes: 'not a list' },
        { ...agent, settings: { limits: { max_steps: 'many' } } },
      ];
      for (const variant of variants) {
        const expected = whole.validate(variant);
        const actual = lean.validate(variant);
        expect({ file, valid: actual.valid, errors: actual.errors.map((error) => error.instanceLocation) }).toEqual({
          file,
          valid: expected.valid,
          errors: expected.errors.map((error) => error.instanceLocation),
        });
      }
    }
  });
});
