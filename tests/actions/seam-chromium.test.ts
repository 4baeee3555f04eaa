/**
 * The seam scenarios in headless Chromium: the engine bundled into a page, files and agent files
 * in the Origin Private File System (adapters/opfs/opfs-file-store.ts). Same outcomes as on Node.
 */
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';
import { CHROMIUM, runInChromiumPage } from '../support/chromium-page.js';
import { exampleAgents, nodeOutcomes } from './seam-node-outcomes.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The page script: the scenarios over OPFS, then what OPFS holds, read without the adapter. */
const entry = (
  agents: Record<string, string>,
  folder: string,
) => `import { runSeamScenarios } from './tests/actions/seam-scenarios.ts';
import { createOpfsFileStore, hasOpfs } from './adapters/opfs/opfs-file-store.ts';
const folder = ${JSON.stringify(folder)};
const outcomes = await runSeamScenarios(createOpfsFileStore({ folder }), ${JSON.stringify(agents)});
const root = await (await navigator.storage.getDirectory()).getDirectoryHandle(folder);
const summary = await (await (await (await root.getDirectoryHandle('summaries')).getFileHandle('sencha.txt')).getFile()).text();
globalThis.seamResult = { outcomes, summary, hasOpfs: hasOpfs() };`;

describe.skipIf(!existsSync(CHROMIUM))('seam scenarios in Chromium (OPFS)', () => {
  it('agent files as sub-runs and file.read/write give the same outcomes as on Node', async () => {
    const source = entry(exampleAgents(), `tea-seams-${Date.now()}`);
    const bundle = await esbuild.build(
      baseOptions({
        stdin: { contents: source, resolveDir: ROOT, sourcefile: 'seam-page.ts', loader: 'ts' },
        platform: 'browser',
        write: false,
      }),
    );
    const { value, errors } = await runInChromiumPage(bundle.outputFiles![0]!.text, 'seamResult');
    expect(errors).toEqual([]);
    const inPage = value as { outcomes: unknown; summary: string; hasOpfs: boolean };
    expect(inPage.hasOpfs).toBe(true);
    expect(inPage.outcomes).toEqual(await nodeOutcomes());
    expect(inPage.summary).toBe('Oolong is a partly oxidised tea between green and black.');
  }, 90_000);
});
