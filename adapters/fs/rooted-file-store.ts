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
import { BeneathRefusal, hasDescriptorPaths, openBeneath } from './open-beneath.js';

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export interface RootedFileStoreOptions {
  /** Use the check-then-verify walk even where descriptor paths exist (tests of the fallback). */
  portable?: boolean;
  /**
   * Run the check-then-verify walk where it is the only one (no working `/proc/self/fd`: macOS,
   * Windows, some sandboxes). That walk narrows a folder-swap race but cannot close it
   * (docs/security.md, "The file root"), so without this every read and write is refused with
   * STORAGE_ERROR naming `--accept-file-race`. The CLI sets it from that flag.
   */
  acceptRace?: boolean;
  /** Where the one warning a store prints when it runs the racy walk goes (default console.warn). */
  warn?: (message: string) => void;
}

/** The flag that accepts the racy walk, named in refusals and warnings. */
export const ACCEPT_FILE_RACE_FLAG = '--accept-file-race';

/** A FileStore over `directory` (which must exist). */
export function createRootedFileStore(directory: string, options: RootedFileStoreOptions = {}): FileStore {
  const root = path.resolve(directory);
  let realRoot: Promise<string> | undefined;
  // The host named the root: a link on its own path is the host's choice, resolved once.
  const rootReal = () => (realRoot ??= realpath(root));
  const description = `folder ${directory}`;
  let warned = false;
  /** The walk's options, once the root shows which walk it gets: the racy one only when accepted. */
  const walk = async (realRootPath: string) => {
    const racy = options.portable === true || !(await hasDescriptorPaths(realRootPath));
    if (!racy) return options;
    if (options.acceptRace !== true) {
      throw new AgentError(
        'STORAGE_ERROR',
        `${description} cannot be opened relative to a folder the store holds on this system (no /proc/self/fd), and the check-then-verify walk it would use cannot close a race with a process that swaps folders for links; the host accepts that with ${ACCEPT_FILE_RACE_FLAG} (docs/security.md, "The file root")`,
        { details: { reason: 'racy-walk', accept: ACCEPT_FILE_RACE_FLAG } },
      );
    }
    if (!warned) {
      warned = true;
      (options.warn ?? console.warn)(
        `tea-edge: ${description} uses the check-then-verify walk (accepted with ${ACCEPT_FILE_RACE_FLAG}): another process that can change folders in it may still lead a read or write outside it`,
      );
    }
    return { ...options, portable: true };
  };

  const failure = (operation: string, file: string, error: unknown): AgentError => {
    if (AgentError.isInstance(error)) return error;
    if (error instanceof BeneathRefusal) return refusal(file, error);
    return storageError(error, `cannot ${operation} '${file}' in ${description}`, {
      path: file,
      ...(codeOf(error) !== undefined ? { reason: codeOf(error) } : {}),
    });
  };
  const refusal = (file: string, error: BeneathRefusal): AgentError => {
    const details = { path: file, reason: error.reason };
    if (error.reason === 'not-a-file')
      return new AgentError('INVALID_PARAMS', `'${file}' in ${description} is not a file`, { field: 'path', details });
    if (error.reason === 'hard-link')
      return new AgentError(
        'FORBIDDEN',
        `'${file}' in ${description} has more than one link (a hard link may be a file outside the folder)`,
        { field: 'path', details },
      );
    return new AgentError('FORBIDDEN', `'${file}' leads out of ${description} (through a symbolic link)`, {
      field: 'path',
      details,
    });
  };

  /** The path's components, after the same refusal the engine applies (a store is a public seam). */
  const partsOf = (file: string): string[] => {
    const problem = rootedPathRefusal(file);
    if (problem !== undefined)
      throw new AgentError('INVALID_PARAMS', `${quoteText(file, 80)} is refused: ${problem}`, { field: 'path' });
    return file.split('/');
  };

  return {
    description,
    async read(file, maxBytes) {
      const parts = partsOf(file);
      try {
        const realRootPath = await rootReal();
        const handle = await openBeneath(realRootPath, parts, 'read', await walk(realRootPath));
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
        const realRootPath = await rootReal();
        const handle = await openBeneath(realRootPath, parts, 'write', await walk(realRootPath));
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
