/**
 * The library's cost follows use: a browser bundle made from the packed tarball (as a user's
 * bundler makes it, with the package's "sideEffects") of `runAgent` alone carries neither the YAML
 * parser nor the Lua VM, which `loadAgent` brings. Sizes are reported by `tea-edge bench bundles`.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFromPackage, installPackedTarball } from '../../bench/package-bundles.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const YAML_PARSER = 'Implicit keys need to be on a single line';
const LUA_VM = 'luaL_newstate';
let directory: string;

beforeAll(async () => {
  directory = await installPackedTarball(ROOT);
}, 120_000);
afterAll(() => rm(directory, { recursive: true, force: true }));

const contains = (outputs: Array<{ text: string }>, marker: string) => outputs.some((output) => output.text.includes(marker));

describe('a browser bundle from the packed tarball', () => {
  it('of runAgent has no YAML parser and no Lua VM', async () => {
    const outputs = await bundleFromPackage(directory, "import { runAgent, createMemoryStores } from 'tea-edge'; globalThis.tea = { runAgent, createMemoryStores };", 'run');
    expect(contains(outputs, YAML_PARSER)).toBe(false);
    expect(contains(outputs, LUA_VM)).toBe(false);
  }, 60_000);

  it('of loadAgent has both (the markers are real)', async () => {
    const outputs = await bundleFromPackage(directory, "import { loadAgent } from 'tea-edge'; globalThis.tea = { loadAgent };", 'load');
    expect(contains(outputs, YAML_PARSER)).toBe(true);
    expect(contains(outputs, LUA_VM)).toBe(true);
  }, 60_000);
});
