/**
 * The Deno file seam: a FileStore (src/core/file-store.ts) over one folder, for the Deno entry
 * (`FILES_DIR`). Deno's own permissions are the outer wall: run with `--allow-read=DIR
 * --allow-write=DIR` and nothing else on disk can be touched whatever this code does; a denied
 * permission is FORBIDDEN saying which flag to give.
 *
 * Inside, what is used is what was checked (issue 24 cause 2), as far as Deno allows: Deno has
 * neither `openat` nor `O_NOFOLLOW`, so the path is walked from the root's real path with `lstat`
 * (a link on the way is FORBIDDEN), the file is opened by name without truncation, and then the
 * opened file (`FsFile.stat`: device and inode) must be the one the name gives now (`lstat`), with
 * every folder on the way still the same folder, checked before and after that. Only then is it
 * read, or truncated and written through the same handle; a read is checked once more after
 * reading and thrown away if anything moved. The file must be a regular file with one link (a
 * hard link inside the root to an outside file is that file). This narrows the swap race without
 * closing it (docs/security.md, "The file root"). Declares the slice of the `Deno` namespace it uses.
 */
import { AgentError, quoteText, rootedPathRefusal, storageError, type FileStore } from '../../src/host-storage.js';

/** What Deno's `FileInfo` gives that is used: `dev`, `ino` and `nlink` are set on Linux and macOS. */
export interface DenoFileInfo {
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
  dev: number;
  ino: number | null;
  nlink: number | null;
}

export interface DenoFileLike {
  read(buffer: Uint8Array): Promise<number | null>;
  write(data: Uint8Array): Promise<number>;
  truncate(length?: number): Promise<void>;
  stat(): Promise<DenoFileInfo>;
  close(): void;
}

/** The slice of `Deno` used. */
export interface DenoFsLike {
  realPath(path: string): Promise<string>;
  open(
    path: string,
    options: { read?: boolean; write?: boolean; create?: boolean; truncate?: false },
  ): Promise<DenoFileLike>;
  mkdir(path: string): Promise<void>;
  lstat(path: string): Promise<DenoFileInfo>;
  build: { os: string };
}

/** Why a path was refused. */
type Refusal = 'link' | 'hard-link' | 'not-a-file' | 'moved';

class DenoRefusal extends Error {
  constructor(readonly reason: Refusal) {
    super(`refused: ${reason}`);
  }
}

const sameNode = (a: DenoFileInfo, b: DenoFileInfo) => a.dev === b.dev && a.ino !== null && a.ino === b.ino;

export interface DenoFileStoreOptions {
  /**
   * The host accepts that the lstat walk narrows a folder-swap race without closing it (Deno has
   * neither `openat` nor `O_NOFOLLOW`; docs/security.md, "Deno's limits"). Without it the store is
   * not made: createDenoFileStore throws STORAGE_ERROR naming `ACCEPT_FILE_RACE=1`, the Deno
   * entry's variable that sets it.
   */
  acceptRace?: boolean;
  /** Where the one warning printed when the store is made goes (default console.warn). */
  warn?: (message: string) => void;
}

/** The Deno entry's variable that accepts the racy walk, named in the refusal and the warning. */
export const ACCEPT_FILE_RACE_VARIABLE = 'ACCEPT_FILE_RACE=1';

export function createDenoFileStore(
  deno: DenoFsLike,
  directory: string,
  options: DenoFileStoreOptions = {},
): FileStore {
  const description = `folder ${directory}`;
  if (options.acceptRace !== true) {
    throw new AgentError(
      'STORAGE_ERROR',
      `${description}: Deno cannot open a file relative to a folder it holds nor refuse a link when opening, so the store's checks narrow a race with a process that swaps folders for links without closing it; the host accepts that with ${ACCEPT_FILE_RACE_VARIABLE} (docs/security.md, "Deno's limits")`,
      { details: { reason: 'racy-walk', accept: ACCEPT_FILE_RACE_VARIABLE } },
    );
  }
  (options.warn ?? console.warn)(
    `tea-edge: ${description} is opened by name with checks (accepted with ${ACCEPT_FILE_RACE_VARIABLE}): another process that can change folders in it may still lead a read or write outside it`,
  );
  const separator = deno.build.os === 'windows' ? '\\' : '/';
  const root = directory.replace(/[\\/]+$/, '');
  let realRoot: Promise<string> | undefined;
  const kind = (error: unknown) => (error as { name?: unknown } | null)?.name;

  const failure = (operation: string, file: string, error: unknown): AgentError => {
    if (AgentError.isInstance(error)) return error;
    const details = { path: file, ...(error instanceof DenoRefusal ? { reason: error.reason } : {}) };
    if (error instanceof DenoRefusal) {
      if (error.reason === 'not-a-file')
        return new AgentError('INVALID_PARAMS', `'${file}' in ${description} is not a file`, {
          field: 'path',
          details,
        });
      if (error.reason === 'hard-link')
        return new AgentError(
          'FORBIDDEN',
          `'${file}' in ${description} has more than one link (a hard link may be a file outside the folder)`,
          { field: 'path', details },
        );
      if (error.reason === 'moved')
        return new AgentError(
          'FORBIDDEN',
          `'${file}' in ${description} changed while it was opened (a folder on the path was moved or linked)`,
          { field: 'path', details },
        );
      return new AgentError('FORBIDDEN', `'${file}' leads out of ${description} (through a symbolic link)`, {
        field: 'path',
        details,
      });
    }
    if (kind(error) === 'PermissionDenied' || kind(error) === 'NotCapable') {
      return new AgentError(
        'FORBIDDEN',
        `Deno denied ${operation} of '${file}': give the permission for the files folder (--allow-read=${directory} --allow-write=${directory})`,
        { field: 'path', details },
      );
    }
    return storageError(error, `cannot ${operation} '${file}' in ${description}`, details);
  };
  const partsOf = (file: string) => {
    const refusal = rootedPathRefusal(file);
    if (refusal !== undefined)
      throw new AgentError('INVALID_PARAMS', `${quoteText(file, 80)} is refused: ${refusal}`, { field: 'path' });
    return file.split('/');
  };
  const lstatOrUndefined = (at: string) =>
    deno
      .lstat(at)
      .catch((error: unknown) =>
        kind(error) === 'NotFound' || kind(error) === 'NotADirectory' ? undefined : Promise.reject(error),
      );

  interface Opened {
    handle: DenoFileLike;
    /** Checks again that the folders and the file's name still lead to the opened file; throws 'moved' if not. */
    verify(): Promise<void>;
  }

  /** Walks `parts` from the root without following a link, opens the file (never truncating) and checks it is what the path names. */
  const openChecked = async (parts: readonly string[], mode: 'read' | 'write'): Promise<Opened | undefined> => {
    let at: string;
    try {
      // Not kept when it fails: a files folder made later is found then.
      at = await (realRoot ??= deno.realPath(root).catch((error: unknown) => {
        realRoot = undefined;
        throw error;
      }));
    } catch (error) {
      if (kind(error) === 'NotFound' && mode === 'read') return undefined;
      throw error;
    }
    const folders: Array<{ at: string; info: DenoFileInfo }> = [];
    for (const part of parts.slice(0, -1)) {
      at = `${at}${separator}${part}`;
      let info = await lstatOrUndefined(at);
      if (info === undefined && mode === 'write') {
        await deno
          .mkdir(at)
          .catch((error: unknown) => (kind(error) === 'AlreadyExists' ? undefined : Promise.reject(error)));
        info = await lstatOrUndefined(at);
      }
      if (info === undefined) return undefined;
      if (info.isSymlink) throw new DenoRefusal('link');
      if (!info.isDirectory) {
        if (mode === 'read') return undefined;
        throw new DenoRefusal('not-a-file');
      }
      folders.push({ at, info });
    }
    const name = `${at}${separator}${parts[parts.length - 1]!}`;
    // Deno has no O_NOFOLLOW: a link at the file's own name is refused before the open, and the check after it catches one put there since.
    const before = await lstatOrUndefined(name);
    if (before === undefined && mode === 'read') return undefined;
    if (before?.isSymlink === true) throw new DenoRefusal('link');
    if (before !== undefined && !before.isFile) throw new DenoRefusal('not-a-file');
    const foldersUnchanged = async () => {
      for (const folder of folders) {
        const again = await lstatOrUndefined(folder.at);
        if (again === undefined || again.isSymlink || !sameNode(again, folder.info)) return false;
      }
      return true;
    };
    // A file made by this open is made by name: the folders are checked just before it, which narrows (not closes) the window for making it outside.
    if (before === undefined && !(await foldersUnchanged())) throw new DenoRefusal('moved');
    let handle: DenoFileLike;
    try {
      handle = await deno.open(name, mode === 'read' ? { read: true } : { write: true, create: true, truncate: false });
    } catch (error) {
      if (kind(error) === 'NotFound' && mode === 'read') return undefined;
      throw error;
    }
    try {
      const opened = await handle.stat();
      if (!opened.isFile) throw new DenoRefusal('not-a-file');
      if (opened.ino === null || opened.nlink === null)
        throw new Error('this system gives no inode or link count, so an opened file cannot be checked');
      if (opened.nlink > 1) throw new DenoRefusal('hard-link');
      const verify = async () => {
        // The folders, the file by name, the folders again: a swap must be undone twice to pass.
        let same = await foldersUnchanged();
        const now = await lstatOrUndefined(name);
        same &&= now !== undefined && !now.isSymlink && sameNode(now, opened);
        same &&= await foldersUnchanged();
        if (!same) throw new DenoRefusal('moved');
      };
      await verify();
      return { handle, verify };
    } catch (error) {
      handle.close();
      throw error;
    }
  };

  return {
    description,
    async read(file, maxBytes) {
      try {
        const opened = await openChecked(partsOf(file), 'read');
        if (opened === undefined) return undefined;
        const { handle } = opened;
        try {
          const buffer = new Uint8Array(maxBytes + 1);
          let filled = 0;
          while (filled < buffer.length) {
            const read = await handle.read(buffer.subarray(filled));
            if (read === null || read === 0) break;
            filled += read;
          }
          // Read, then checked once more: text from a file that was not the path's all along is thrown away.
          await opened.verify();
          return buffer.subarray(0, filled);
        } finally {
          handle.close();
        }
      } catch (error) {
        throw failure('read', file, error);
      }
    },
    async write(file, bytes) {
      try {
        const opened = await openChecked(partsOf(file), 'write');
        if (opened === undefined) throw new Error('the file could not be created');
        const { handle } = opened;
        try {
          // Checked twice before anything is changed: truncated and written only through the checked handle.
          await opened.verify();
          await handle.truncate(0);
          for (let written = 0; written < bytes.length; ) written += await handle.write(bytes.subarray(written));
        } finally {
          handle.close();
        }
      } catch (error) {
        throw failure('write', file, error);
      }
    },
  };
}
