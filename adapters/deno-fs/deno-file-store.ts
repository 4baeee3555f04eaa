/**
 * The Deno file seam: a FileStore (src/core/file-store.ts) over one folder, for the Deno entry
 * (`FILES_DIR`). Deno's own permissions are the outer wall: run with `--allow-read=DIR
 * --allow-write=DIR` and nothing else on disk can be touched whatever this code does; a denied
 * permission is FORBIDDEN saying which flag to give. Inside, as on Node, the real path of the
 * file (or of its nearest existing folder) must stay inside the root's real path, so a symbolic
 * link cannot lead out. Declares the slice of the `Deno` namespace it uses.
 */
import { AgentError } from '../../src/core/agent-error.js';
import type { FileStore } from '../../src/core/file-store.js';
import { rootedPathRefusal } from '../../src/util/rooted-path.js';
import { storageError } from '../../src/storage/storage-error.js';

/** The slice of `Deno` used. */
export interface DenoFsLike {
  realPath(path: string): Promise<string>;
  open(path: string, options: { read: true }): Promise<{ read(buffer: Uint8Array): Promise<number | null>; stat(): Promise<{ isFile: boolean }>; close(): void }>;
  mkdir(path: string, options: { recursive: true }): Promise<void>;
  writeFile(path: string, data: Uint8Array): Promise<void>;
  lstat(path: string): Promise<{ isSymlink: boolean }>;
  build: { os: string };
}

export function createDenoFileStore(deno: DenoFsLike, directory: string): FileStore {
  const description = `folder ${directory}`;
  const separator = deno.build.os === 'windows' ? '\\' : '/';
  const root = directory.replace(/[\\/]+$/, '');
  let realRoot: Promise<string> | undefined;
  const kind = (error: unknown) => (error as { name?: unknown } | null)?.name;

  const inside = async (real: string) => {
    const base = await (realRoot ??= deno.realPath(root));
    return real === base || real.startsWith(base + separator);
  };
  const escaped = (file: string) => new AgentError('FORBIDDEN', `'${file}' leads out of ${description} (through a symbolic link)`, { field: 'path', details: { path: file } });
  const failure = (operation: string, file: string, error: unknown): AgentError => {
    if (AgentError.isInstance(error)) return error;
    if (kind(error) === 'PermissionDenied' || kind(error) === 'NotCapable') {
      return new AgentError('FORBIDDEN', `Deno denied ${operation} of '${file}': give the permission for the files folder (--allow-read=${directory} --allow-write=${directory})`, { field: 'path', details: { path: file } });
    }
    return storageError(error, `cannot ${operation} '${file}' in ${description}`, { path: file });
  };
  const target = (file: string) => {
    const refusal = rootedPathRefusal(file);
    if (refusal !== undefined) throw new AgentError('INVALID_PARAMS', `'${file.slice(0, 80)}' is refused: ${refusal}`, { field: 'path' });
    return [root, ...file.split('/')].join(separator);
  };
  const parentOf = (absolute: string) => absolute.slice(0, absolute.lastIndexOf(separator));
  /** The real path of the nearest existing ancestor of `absolute` (checked before any folder is made). */
  const nearestReal = async (absolute: string): Promise<string> => {
    for (let current = absolute; ; current = parentOf(current)) {
      try {
        return await deno.realPath(current);
      } catch (error) {
        if (kind(error) !== 'NotFound' || current.length <= root.length) throw error;
      }
    }
  };

  return {
    description,
    async read(file, maxBytes) {
      try {
        let real: string;
        try {
          real = await deno.realPath(target(file));
        } catch (error) {
          if (kind(error) === 'NotFound') return undefined;
          throw error;
        }
        if (!(await inside(real))) throw escaped(file);
        const handle = await deno.open(real, { read: true });
        try {
          if (!(await handle.stat()).isFile) throw new AgentError('INVALID_PARAMS', `'${file}' in ${description} is not a file`, { field: 'path', details: { path: file } });
          const buffer = new Uint8Array(maxBytes + 1);
          let filled = 0;
          while (filled < buffer.length) {
            const read = await handle.read(buffer.subarray(filled));
            if (read === null || read === 0) break;
            filled += read;
          }
          return buffer.subarray(0, filled);
        } finally {
          handle.close();
        }
      } catch (error) {
        throw failure('read', file, error);
      }
    },
    async write(file, bytes) {
      const absolute = target(file);
      try {
        if (!(await inside(await nearestReal(parentOf(absolute))))) throw escaped(file);
        await deno.mkdir(parentOf(absolute), { recursive: true });
        if (!(await inside(await deno.realPath(parentOf(absolute))))) throw escaped(file);
        // Deno has no O_NOFOLLOW: an existing link at the file's own name is refused outright.
        const existing = await deno.lstat(absolute).catch((error: unknown) => (kind(error) === 'NotFound' ? undefined : Promise.reject(error)));
        if (existing?.isSymlink === true) throw escaped(file);
        await deno.writeFile(absolute, bytes);
      } catch (error) {
        throw failure('write', file, error);
      }
    },
  };
}
