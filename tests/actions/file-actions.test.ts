/**
 * file.read / file.write through the Node file seam (a rooted folder): round trip, the whole class
 * of paths that would leave the root refused (at load when literal, at run time when templated,
 * and in the store itself), symbolic links out of the root refused, size caps, and a typed refusal
 * saying how to enable files when the host gave no root.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRootedFileStore } from '../../adapters/fs/rooted-file-store.js';
import { MAX_WRITE_BYTES } from '../../src/actions/file-actions.js';
import { AgentError } from '../../src/core/agent-error.js';
import { loadError, runYaml } from '../engine/helpers.js';

const COPY = `
name: copy
nodes:
  - { name: load, uses: file.read, with: { path: "{{ state.from }}" }, output: loaded }
  - { name: save, uses: file.write, with: { path: "{{ state.to }}", content: "{{ state.loaded.content | upper }}" }, output: saved }
`;

/** Paths that must never reach outside the root, whatever the host. */
const HOSTILE = [
  '../secret.txt',
  'a/../../secret.txt',
  '/etc/passwd',
  'C:/windows/win.ini',
  'c:secret',
  'a\\..\\secret.txt',
  '\\\\server\\share',
  'a\u0000.txt',
  '%2e%2e/secret.txt',
  'a%2Fb',
  'file:///etc/passwd',
  's3://bucket/key',
  'memory://x',
  '',
  '.',
  './',
  'a\nb',
];

describe('file.read / file.write on a rooted Node folder', () => {
  let base: string;
  let root: string;
  let files: ReturnType<typeof createRootedFileStore>;

  beforeAll(() => {
    base = mkdtempSync(path.join(tmpdir(), 'tea-files-'));
    root = path.join(base, 'root');
    mkdirSync(path.join(root, 'notes'), { recursive: true });
    writeFileSync(path.join(root, 'notes/tea.txt'), 'green tea\n');
    writeFileSync(path.join(base, 'secret.txt'), 'outside');
    symlinkSync(path.join(base, 'secret.txt'), path.join(root, 'link.txt'));
    symlinkSync(base, path.join(root, 'outdir'));
    files = createRootedFileStore(root);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('reads and writes inside the root, creating folders', async () => {
    const { result } = await runYaml(COPY, { from: './notes/tea.txt', to: 'out/deep/TEA.txt' }, { files });
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.state.loaded).toEqual({ content: 'green tea\n', path: 'notes/tea.txt', bytes: 10, success: true });
    expect(result.state.saved).toEqual({ path: 'out/deep/TEA.txt', bytes: 10, success: true });
    expect(readFileSync(path.join(root, 'out/deep/TEA.txt'), 'utf8')).toBe('GREEN TEA\n');
  });

  it('writes non-text content as JSON; TEA spelling actions.file_read resolves', async () => {
    const yaml =
      'nodes:\n  - { name: w, uses: file.write, with: { path: data.json, content: { a: 1 } } }\n  - { name: r, uses: actions.file_read, with: { path: data.json }, output: back }\n';
    const { result } = await runYaml(yaml, {}, { files });
    expect((result.state.back as { content: string }).content).toBe('{"a":1}');
  });

  it('refuses every path leaving the root: literal at load, templated at run time, and in the store', async () => {
    for (const bad of HOSTILE) {
      if (bad !== '' && !bad.includes('\n') && !bad.includes('\u0000')) {
        const error = loadError(`nodes:\n  - { name: r, uses: file.read, with: { path: ${JSON.stringify(bad)} } }\n`);
        expect(error.code, bad).toBe('INVALID_PARAMS');
      }
      const { result } = await runYaml(COPY, { from: bad, to: 'x.txt' }, { files });
      expect(result.error?.code, JSON.stringify(bad)).toBe('INVALID_PARAMS');
      expect(result.error?.field, bad).toBe('path');
      const written = await runYaml(COPY, { from: 'notes/tea.txt', to: bad }, { files });
      expect(written.result.error?.code, JSON.stringify(bad)).toBe('INVALID_PARAMS');
      await expect(files.read(bad, 10)).rejects.toSatisfy(
        (error: unknown) => AgentError.isInstance(error) && error.code === 'INVALID_PARAMS',
      );
    }
  });

  it('refuses symbolic links that lead out of the root, for reads and writes', async () => {
    const read = await runYaml(COPY, { from: 'link.txt', to: 'x.txt' }, { files });
    expect(read.result.error?.code).toBe('FORBIDDEN');
    const throughFolder = await runYaml(COPY, { from: 'outdir/secret.txt', to: 'x.txt' }, { files });
    expect(throughFolder.result.error?.code).toBe('FORBIDDEN');
    for (const target of ['outdir/new.txt', 'outdir/sub/new.txt', 'link.txt']) {
      const written = await runYaml(COPY, { from: 'notes/tea.txt', to: target }, { files });
      expect(written.result.error?.code, target).toBe('FORBIDDEN');
    }
    expect(readFileSync(path.join(base, 'secret.txt'), 'utf8')).toBe('outside');
  });

  it('caps reads at max_bytes and writes at the write cap', async () => {
    writeFileSync(path.join(root, 'big.txt'), 'x'.repeat(5000));
    const yaml = 'nodes:\n  - { name: r, uses: file.read, with: { path: big.txt, max_bytes: 4096 } }\n';
    const { result } = await runYaml(yaml, {}, { files });
    expect(result.error?.code).toBe('INPUT_TOO_LARGE');
    const fits = await runYaml(yaml.replace('4096', '5000'), {}, { files });
    expect(fits.result.status).toBe('completed');
    const tooBig = await runYaml(
      'nodes:\n  - { name: w, uses: file.write, with: { path: huge.txt, content: "{{ state.text }}" } }\n',
      { text: 'y'.repeat(MAX_WRITE_BYTES + 1) },
      { files },
    );
    expect(tooBig.result.error?.code).toBe('INPUT_TOO_LARGE');
    expect(
      loadError('nodes:\n  - { name: r, uses: file.read, with: { path: a.txt, max_bytes: 999999999 } }\n').code,
    ).toBe('INVALID_PARAMS');
  });

  it('a missing file is NOT_FOUND; a folder is not a file; a closed schema refuses unknown keys', async () => {
    const missing = await runYaml(COPY, { from: 'nope.txt', to: 'x.txt' }, { files });
    expect(missing.result.error?.code).toBe('NOT_FOUND');
    const folder = await runYaml(COPY, { from: 'notes', to: 'x.txt' }, { files });
    expect(folder.result.error?.code).toBe('INVALID_PARAMS');
    const unknown = loadError('nodes:\n  - { name: r, uses: file.read, with: { path: a.txt, cache: simple } }\n');
    expect(unknown.code).toBe('INVALID_PARAMS');
  });

  it('without a file root the actions are refused with a typed error saying how to enable them', async () => {
    const { result } = await runYaml(COPY, { from: 'notes/tea.txt', to: 'x.txt' });
    expect(result.error?.code).toBe('FORBIDDEN');
    expect(result.error?.message).toContain('--files DIR');
    expect(result.error?.node).toBe('load');
  });
});
