/**
 * The FileStore conformance suite (src/core/file-store.ts): every file root a host gives runs it,
 * the in-memory reference store included. Each test gets a fresh, empty store from `makeStore`.
 * Paths given are normal rooted paths, as the engine hands them (src/util/rooted-path.ts).
 *
 * @example
 *   describeFileStoreConformance('memory', async () => ({ store: createMemoryFileStore() }));
 *   describeFileStoreConformance('folder', async () => {
 *     const directory = await mkdtemp(path.join(tmpdir(), 'files-'));
 *     return { store: createRootedFileStore(directory), cleanup: () => rm(directory, { recursive: true }) };
 *   });
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AgentError } from '../core/agent-error.js';
import type { FileStore } from '../core/file-store.js';

export interface FileStoreUnderTest {
  store: FileStore;
  /** Called after each test (remove a temporary folder, empty a bucket). */
  cleanup?: () => Promise<void> | void;
}

const text = (value: string) => new TextEncoder().encode(value);

/** Registers the conformance suite for one FileStore. */
export function describeFileStoreConformance(name: string, makeStore: () => Promise<FileStoreUnderTest>): void {
  let current: FileStoreUnderTest | undefined;
  const open = async (): Promise<FileStore> => {
    current = await makeStore();
    return current.store;
  };

  afterEach(async () => {
    const opened = current;
    current = undefined;
    await opened?.cleanup?.();
  });

  describe(`FileStore conformance: ${name}`, () => {
    it('names its root in a non-empty description', async () => {
      const store = await open();
      expect(typeof store.description).toBe('string');
      expect(store.description.trim()).not.toBe('');
    });

    it('reads a missing file as undefined, in the root and in a missing folder', async () => {
      const store = await open();
      expect(await store.read('missing.txt', 100)).toBeUndefined();
      expect(await store.read('no/such/folder/file.txt', 100)).toBeUndefined();
    });

    it('writes and reads back the same bytes, every byte value included', async () => {
      const store = await open();
      const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
      await store.write('bytes.bin', bytes);
      expect(await store.read('bytes.bin', 1024)).toEqual(bytes);
    });

    it('keeps an empty file as zero bytes, not as a missing file', async () => {
      const store = await open();
      await store.write('empty.txt', new Uint8Array(0));
      const read = await store.read('empty.txt', 10);
      expect(read).toBeInstanceOf(Uint8Array);
      expect(read).toHaveLength(0);
    });

    it('creates the folders on a path', async () => {
      const store = await open();
      await store.write('a/b/c/deep.txt', text('deep'));
      expect(await store.read('a/b/c/deep.txt', 100)).toEqual(text('deep'));
    });

    it('replaces a file whole: a shorter second write leaves no tail of the first', async () => {
      const store = await open();
      await store.write('note.txt', text('a long first version'));
      await store.write('note.txt', text('short'));
      expect(await store.read('note.txt', 100)).toEqual(text('short'));
    });

    it('reads at most maxBytes + 1 bytes, so a caller can tell a file over its cap', async () => {
      const store = await open();
      const bytes = Uint8Array.from({ length: 1000 }, (_, index) => index % 251);
      await store.write('big.bin', bytes);
      expect(await store.read('big.bin', 10)).toEqual(bytes.subarray(0, 11));
      expect(await store.read('big.bin', 999)).toEqual(bytes);
      expect(await store.read('big.bin', 1000)).toEqual(bytes);
      expect(await store.read('big.bin', 0)).toEqual(bytes.subarray(0, 1));
    });

    it('does not keep a reference to the bytes it was given', async () => {
      const store = await open();
      const bytes = text('original');
      await store.write('copy.txt', bytes);
      bytes.fill(0);
      expect(await store.read('copy.txt', 100)).toEqual(text('original'));
    });

    it('keeps names apart that differ only in case, and takes non-ASCII names', async () => {
      const store = await open();
      await store.write('ünïcødé/名前 🚀.txt', text('unicode'));
      await store.write('Case.txt', text('upper'));
      await store.write('case-two.txt', text('lower'));
      expect(await store.read('ünïcødé/名前 🚀.txt', 100)).toEqual(text('unicode'));
      expect(await store.read('Case.txt', 100)).toEqual(text('upper'));
      expect(await store.read('case-two.txt', 100)).toEqual(text('lower'));
    });

    it('writes files side by side at once, each kept whole', async () => {
      const store = await open();
      const names = Array.from({ length: 12 }, (_, index) => `many/file-${index}.txt`);
      await Promise.all(names.map((file, index) => store.write(file, text(`content ${index}`.repeat(index + 1)))));
      for (const [index, file] of names.entries())
        expect(await store.read(file, 10_000)).toEqual(text(`content ${index}`.repeat(index + 1)));
    });

    it('a folder is not a file: reading one gives no bytes (undefined or an AgentError)', async () => {
      const store = await open();
      await store.write('folder/inside.txt', text('x'));
      const outcome = await store.read('folder', 100).catch((error: unknown) => error);
      if (outcome !== undefined)
        expect(AgentError.isInstance(outcome), `read('folder') gave ${String(outcome)}`).toBe(true);
    });

    it('fails with an AgentError, not a raw error, when a file is in the way of a folder', async () => {
      const store = await open();
      await store.write('blocker', text('a file'));
      const outcome = await store.write('blocker/child.txt', text('x')).then(
        () => 'written',
        (error: unknown) => error,
      );
      // A flat medium (an object store) may keep both; a disk cannot, and must say so as an AgentError.
      if (outcome !== 'written') expect(AgentError.isInstance(outcome), `write gave ${String(outcome)}`).toBe(true);
      expect(await store.read('blocker', 100)).toEqual(text('a file'));
    });
  });
}
