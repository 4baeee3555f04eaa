/**
 * The browser file seam: a FileStore (src/core/file-store.ts) over the Origin Private File System
 * (`navigator.storage.getDirectory()`), inside one folder of it (default `tea-files`). Paths arrive
 * as normal rooted paths; each segment is a name looked up in its folder handle, so `..`, links
 * and absolute paths have no meaning here. Files are private to the page's origin.
 */
import { AgentError, storageError, type FileStore } from '../../src/host-storage.js';

/** The slice of FileSystemDirectoryHandle used (declared so the adapter needs no DOM lib). */
interface DirectoryHandleLike {
  getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<DirectoryHandleLike>;
  getFileHandle(name: string, options?: { create?: boolean }): Promise<FileHandleLike>;
}
interface FileHandleLike {
  getFile(): Promise<Blob>;
  createWritable(): Promise<{ write(data: Uint8Array): Promise<void>; close(): Promise<void> }>;
}

export interface OpfsFileStoreOptions {
  /** The folder of the origin's private file system the files live in (default `tea-files`). */
  folder?: string;
  /** The private file system's root (default: `navigator.storage.getDirectory()`). */
  root?: () => Promise<DirectoryHandleLike>;
}

/** True when this context has OPFS (Chromium, Firefox, Safari; pages and workers alike). */
export function hasOpfs(): boolean {
  const storage = (globalThis as { navigator?: { storage?: { getDirectory?: unknown } } }).navigator?.storage;
  return typeof storage?.getDirectory === 'function';
}

export function createOpfsFileStore(options: OpfsFileStoreOptions = {}): FileStore {
  const folder = options.folder ?? 'tea-files';
  const description = `the browser's private file system (folder ${folder})`;
  const openRoot =
    options.root ??
    (() =>
      (
        globalThis as unknown as { navigator: { storage: { getDirectory(): Promise<DirectoryHandleLike> } } }
      ).navigator.storage.getDirectory());
  const name = (error: unknown) => (error as { name?: unknown } | null)?.name;

  /** The folder handle holding `file`, created on the way when `create`; undefined when missing. */
  const parentOf = async (
    file: string,
    create: boolean,
  ): Promise<{ folder: DirectoryHandleLike; base: string } | undefined> => {
    const segments = file.split('/');
    const base = segments.pop()!;
    let current = await (await openRoot()).getDirectoryHandle(folder, { create: true });
    for (const segment of segments) {
      try {
        current = await current.getDirectoryHandle(segment, { create });
      } catch (error) {
        if (!create && name(error) === 'NotFoundError') return undefined;
        throw error;
      }
    }
    return { folder: current, base };
  };

  const failure = (operation: string, file: string, error: unknown): AgentError => {
    if (AgentError.isInstance(error)) return error;
    if (name(error) === 'TypeMismatchError')
      return new AgentError(
        'INVALID_PARAMS',
        `'${file}' in ${description} is a folder where a file was expected, or the other way round`,
        { field: 'path', details: { path: file } },
      );
    return storageError(error, `cannot ${operation} '${file}' in ${description}`, { path: file });
  };

  return {
    description,
    async read(file, maxBytes) {
      try {
        const place = await parentOf(file, false);
        if (place === undefined) return undefined;
        let handle: FileHandleLike;
        try {
          handle = await place.folder.getFileHandle(place.base);
        } catch (error) {
          if (name(error) === 'NotFoundError') return undefined;
          throw error;
        }
        const blob = await handle.getFile();
        return new Uint8Array(await blob.slice(0, maxBytes + 1).arrayBuffer());
      } catch (error) {
        throw failure('read', file, error);
      }
    },
    async write(file, bytes) {
      try {
        const place = (await parentOf(file, true))!;
        const writable = await (await place.folder.getFileHandle(place.base, { create: true })).createWritable();
        await writable.write(bytes);
        await writable.close();
      } catch (error) {
        throw failure('write', file, error);
      }
    },
  };
}
