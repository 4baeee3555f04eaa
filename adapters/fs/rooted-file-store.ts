/**
 * The Node file seam: a FileStore (src/core/file-store.ts) over one directory, for `tea-edge run
 * --files DIR` and `serve --files DIR`. Paths arrive normalised (no `..`, no absolute path, no
 * backslash); what a disk can still do is lead out through a symbolic link, or through a hard
 * link to an outside file, and change between a check and an open. So every read and write opens
 * the file by walking its path from the root one component at a time without following a link
 * (open-beneath.ts), refuses a file with more than one link, and truncates only through the
 * descriptor it checked.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { AgentError, quoteText, rootedPathRefusal, storageError, type FileStore } from '../../src/host-storage.js';
import { BeneathRefusal, openBeneath } from './open-beneath.js';

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export interface RootedFileStoreOptions {
  /** Use the check-then-verify walk even where descriptor paths exist (tests of the fallback). */
  portable?: boolean;
}

/** A FileStore over `directory` (which must exist). */
export function createRootedFileStore(directory: string, options: RootedFileStoreOptions = {}): FileStore {
  const root = path.resolve(directory);
  let realRoot: Promise<string> | undefined;
  // The host named the root: a link on its own path is the host's choice, resolved once.
  const rootReal = () => (realRoot ??= realpath(root));
  const description = `folder ${directory}`;

  const failure = (operation: string, file: string, error: unknown): AgentError => {
    if (AgentError.isInstance(error)) return error;
    if (error instanceof BeneathRefusal) return refusal(file, error);
    return storageError(error, `cannot ${operation} '${file}' in ${description}`, { path: file, ...(codeOf(error) !== undefined ? { reason: codeOf(error) } : {}) });
  };
  const refusal = (file: string, error: BeneathRefusal): AgentError => {
    const details = { path: file, reason: error.reason };
    if (error.reason === 'not-a-file') return new AgentError('INVALID_PARAMS', `'${file}' in ${description} is not a file`, { field: 'path', details });
    if (error.reason === 'hard-link') return new AgentError('FORBIDDEN', `'${file}' in ${description} has more than one link (a hard link may be a file outside the folder)`, { field: 'path', details });
    return new AgentError('FORBIDDEN', `'${file}' leads out of ${description} (through a symbolic link)`, { field: 'path', details });
  };

  /** The path's components, after the same refusal the engine applies (a store is a public seam). */
  const partsOf = (file: string): string[] => {
    const problem = rootedPathRefusal(file);
    if (problem !== undefined) throw new AgentError('INVALID_PARAMS', `${quoteText(file, 80)} is refused: ${problem}`, { field: 'path' });
    return file.split('/');
  };

  return {
    description,
    async read(file, maxBytes) {
      const parts = partsOf(file);
      try {
        const handle = await openBeneath(await rootReal(), parts, 'read', options);
        if (handle === undefined) return undefined;
        try {
          const buffer = new Uint8Array(maxBytes + 1);
          let filled = 0;
          while (filled < buffer.length) {
            const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
            if (bytesRead === 0) break;
            filled += bytesRead;
          }
          return buffer.subarray(0, filled);
        } finally {
          await handle.close();
        }
      } catch (error) {
        throw failure('read', file, error);
      }
    },
    async write(file, bytes) {
      const parts = partsOf(file);
      try {
        const handle = await openBeneath(await rootReal(), parts, 'write', options);
        if (handle === undefined) throw new Error('the folder could not be made');
        try {
          await handle.truncate(0);
          await handle.writeFile(bytes);
        } finally {
          await handle.close();
        }
      } catch (error) {
        throw failure('write', file, error);
      }
    },
  };
}
