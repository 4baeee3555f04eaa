/**
 * The Node file root against another process that swaps a folder on the path for a symbolic link
 * to an outside folder, over and over, while the store reads and writes through it (issue 24
 * cause 2); and against a hard link inside the root to an outside file. Nothing outside may ever
 * be read or written: each read gives the inside text, NOT_FOUND or FORBIDDEN, and the outside
 * folder keeps exactly its files and their text.
 */
import type { ChildProcess } from 'node:child_process';
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hasDescriptorPaths } from '../../adapters/fs/open-beneath.js';
import { createRootedFileStore } from '../../adapters/fs/rooted-file-store.js';
import { AgentError } from '../../src/core/agent-error.js';
import { startFolderSwapper } from '../support/folder-swapper.js';

const ROUNDS = 600;

interface Fixture {
  base: string;
  root: string;
  outside: string;
  swapper?: ChildProcess;
}

let fixture: Fixture | undefined;

afterEach(() => {
  fixture?.swapper?.kill('SIGKILL');
  if (fixture !== undefined) rmSync(fixture.base, { recursive: true, force: true });
  fixture = undefined;
});

function makeFixture(): Fixture {
  const base = mkdtempSync(path.join(tmpdir(), 'tea-race-'));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  mkdirSync(path.join(root, 'dir'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(root, 'dir', 'note.txt'), 'inside');
  writeFileSync(path.join(outside, 'note.txt'), 'OUTSIDE SECRET');
  // A file both folders have: a write through the link would rewrite the outside one.
  writeFileSync(path.join(root, 'dir', 'target.txt'), 'inside');
  writeFileSync(path.join(outside, 'target.txt'), 'OUTSIDE TARGET');
  return { base, root, outside };
}

function startSwapper(current: Fixture): ChildProcess {
  const child = startFolderSwapper(
    path.join(current.root, 'dir'),
    path.join(current.root, 'dir.real'),
    current.outside,
  );
  current.swapper = child;
  return child;
}

/** The outside folder's files and texts. */
function outsideFiles(current: Fixture): Record<string, string> {
  return Object.fromEntries(
    readdirSync(current.outside)
      .sort()
      .map((name) => [name, readFileSync(path.join(current.outside, name), 'utf8')]),
  );
}

const codeOf = (error: unknown) => (AgentError.isInstance(error) ? error.code : `raw ${String(error)}`);

describe.each([
  ['descriptor walk (Linux)', false],
  ['lstat walk and check (other systems)', true],
])('the Node file root, %s', (_name, portable) => {
  // The lstat walk narrows the race but cannot close it (docs/security.md, "The file root"): only the descriptor walk is raced.
  it.skipIf(portable || process.platform !== 'linux')(
    `a folder swapped for a link ${ROUNDS} times never lets a read or write out`,
    async () => {
      const current = (fixture = makeFixture());
      const store = createRootedFileStore(current.root, { portable, acceptRace: portable, warn: () => undefined });
      // The default mode on Linux: the probe found /proc/self/fd naming the held folder.
      expect(await hasDescriptorPaths(current.root)).toBe(true);
      startSwapper(current);
      const reads: Record<string, number> = {};
      const writes: Record<string, number> = {};
      const count = (tally: Record<string, number>, key: string) => (tally[key] = (tally[key] ?? 0) + 1);
      for (let round = 0; round < ROUNDS; round++) {
        await Promise.all([
          store.read('dir/note.txt', 100).then(
            (bytes) => count(reads, bytes === undefined ? 'missing' : new TextDecoder().decode(bytes)),
            (error: unknown) => count(reads, codeOf(error)),
          ),
          store.write('dir/target.txt', new TextEncoder().encode('written')).then(
            () => count(writes, 'written'),
            (error: unknown) => count(writes, codeOf(error)),
          ),
          store.write(`dir/new-${round}.txt`, new TextEncoder().encode('new')).then(
            () => count(writes, 'written'),
            (error: unknown) => count(writes, codeOf(error)),
          ),
        ]);
      }
      current.swapper!.kill('SIGKILL');
      expect(
        Object.keys(reads).filter((outcome) => !['inside', 'missing', 'FORBIDDEN'].includes(outcome)),
        JSON.stringify(reads),
      ).toEqual([]);
      expect(
        Object.keys(writes).filter((outcome) => !['written', 'FORBIDDEN', 'STORAGE_ERROR'].includes(outcome)),
        JSON.stringify(writes),
      ).toEqual([]);
      // The swap happened under the store: some calls met the link or the missing folder.
      expect(
        (reads.FORBIDDEN ?? 0) + (reads.missing ?? 0) + (writes.FORBIDDEN ?? 0) + (writes.STORAGE_ERROR ?? 0),
        `${JSON.stringify(reads)} ${JSON.stringify(writes)}`,
      ).toBeGreaterThan(0);
      const after = outsideFiles(current);
      expect(after['note.txt']).toBe('OUTSIDE SECRET');
      expect(after['target.txt']).toBe('OUTSIDE TARGET');
      expect(Object.keys(after).filter((name) => name !== 'note.txt' && name !== 'target.txt')).toEqual([]);
    },
  );

  it('a hard link inside the root to an outside file is neither read nor rewritten', async () => {
    const current = (fixture = makeFixture());
    linkSync(path.join(current.outside, 'note.txt'), path.join(current.root, 'hard.txt'));
    const store = createRootedFileStore(current.root, { portable, acceptRace: portable, warn: () => undefined });
    await expect(store.read('hard.txt', 100)).rejects.toSatisfy(
      (error: unknown) =>
        AgentError.isInstance(error) && error.code === 'FORBIDDEN' && error.details.reason === 'hard-link',
    );
    await expect(store.write('hard.txt', new TextEncoder().encode('overwritten'))).rejects.toSatisfy(
      (error: unknown) => AgentError.isInstance(error) && error.code === 'FORBIDDEN',
    );
    expect(outsideFiles(current)).toEqual({ 'note.txt': 'OUTSIDE SECRET', 'target.txt': 'OUTSIDE TARGET' });
    // A file of the root with one link is read and written as before.
    await store.write('dir/own.txt', new TextEncoder().encode('mine'));
    expect(new TextDecoder().decode(await store.read('dir/own.txt', 100))).toBe('mine');
  });

  it('a link as a folder on the path, or as the file, is refused before anything is opened outside', async () => {
    const current = (fixture = makeFixture());
    const store = createRootedFileStore(current.root, { portable, acceptRace: portable, warn: () => undefined });
    symlinkSync(current.outside, path.join(current.root, 'out'));
    symlinkSync(path.join(current.outside, 'note.txt'), path.join(current.root, 'dir', 'link.txt'));
    for (const file of ['out/note.txt', 'out/new.txt', 'out/deeper/new.txt', 'dir/link.txt']) {
      await expect(store.read(file, 100), file).rejects.toSatisfy(
        (error: unknown) => AgentError.isInstance(error) && error.code === 'FORBIDDEN',
      );
      await expect(store.write(file, new TextEncoder().encode('x')), file).rejects.toSatisfy(
        (error: unknown) => AgentError.isInstance(error) && error.code === 'FORBIDDEN',
      );
    }
    expect(outsideFiles(current)).toEqual({ 'note.txt': 'OUTSIDE SECRET', 'target.txt': 'OUTSIDE TARGET' });
  });
});

describe('the Node file root where only the racy walk is possible', () => {
  it('refuses every read and write unless the host accepts the race, then warns once', async () => {
    const current = (fixture = makeFixture());
    // `portable` stands for a system without /proc/self/fd: the store takes the check-then-verify walk.
    const refusing = createRootedFileStore(current.root, { portable: true });
    const racyWalk = (error: unknown) =>
      AgentError.isInstance(error) &&
      error.code === 'STORAGE_ERROR' &&
      error.details.reason === 'racy-walk' &&
      error.message.includes('--accept-file-race');
    await expect(refusing.read('dir/note.txt', 100)).rejects.toSatisfy(racyWalk);
    await expect(refusing.write('fresh.txt', new TextEncoder().encode('x'))).rejects.toSatisfy(racyWalk);
    expect(existsSync(path.join(current.root, 'fresh.txt'))).toBe(false);

    const warnings: string[] = [];
    const accepting = createRootedFileStore(current.root, {
      portable: true,
      acceptRace: true,
      warn: (message) => warnings.push(message),
    });
    await accepting.write('fresh.txt', new TextEncoder().encode('x'));
    expect(new TextDecoder().decode(await accepting.read('fresh.txt', 100))).toBe('x');
    await accepting.read('dir/missing.txt', 100);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('--accept-file-race');
  });
});
