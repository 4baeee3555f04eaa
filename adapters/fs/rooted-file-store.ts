/**
 * The Node file seam: a FileStore (src/core/file-store.ts) over one directory, for `tea-edge run
 * --files DIR` and `serve --files DIR`. Paths arrive normalised (no `..`, no absolute path, no
 * backslash); what a disk can still do is follow a symbolic link out of the root, so every read
 * and write checks the real path (realpath) of the file, or of its nearest existing folder for a
 * new file, against the root's real path, and opens the last component without following links.
 */
import { constants } from 'node:fs';
import { mkdir, open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { AgentError } from '../../src/errors/agent-error.js';
import type { FileStore } from '../../src/core/file-store.js';
import { rootedPathRefusal } from '../../src/util/rooted-path.js';
import { messageOf } from '../../src/util/message-of.js';

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A FileStore over `directory` (which must exist). */
export function createRootedFileStore(directory: string): FileStore {
  const root = path.resolve(directory);
  let realRoot: Promise<string> | undefined;
  const rootReal = () => (realRoot ??= realpath(root));
  const description = `folder ${directory}`;

  const failure = (operation: string, file: string, error: unknown): AgentError => {
    if (AgentError.isInstance(error)) return error;
    return new AgentError('STORAGE_ERROR', `cannot ${operation} '${file}' in ${description}: ${messageOf(error)}`, { details: { path: file, ...(codeOf(error) !== undefined ? { reason: codeOf(error) } : {}) } });
  };
  const escaped = (file: string) => new AgentError('FORBIDDEN', `'${file}' leads out of ${description} (through a symbolic link)`, { field: 'path', details: { path: file } });

  /** The absolute path of `file`, after the same refusal the engine applies (a store is a public seam). */
  const target = (file: string): string => {
    const refusal = rootedPathRefusal(file);
    if (refusal !== undefined) throw new AgentError('INVALID_PARAMS', `'${file.slice(0, 80)}' is refused: ${refusal}`, { field: 'path' });
    return path.join(root, ...file.split('/'));
  };

  /** True when `candidate` (a real path) is the root or inside it. */
  const inside = async (candidate: string) => {
    const base = await rootReal();
    return candidate === base || candidate.startsWith(base + path.sep);
  };

  /** The real path of the nearest existing ancestor of `absolute` (the file itself when it exists). */
  const nearestReal = async (absolute: string): Promise<string> => {
    let current = absolute;
    for (;;) {
      try {
        return await realpath(current);
      } catch (error) {
        if (codeOf(error) !== 'ENOENT') throw error;
        const parent = path.dirname(current);
        if (parent === current) throw error;
        current = parent;
      }
    }
  };

  return {
    description,
    async read(file, maxBytes) {
      const absolute = target(file);
      try {
        let real: string;
        try {
          real = await realpath(absolute);
        } catch (error) {
          if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') return undefined;
          throw error;
        }
        if (!(await inside(real))) throw escaped(file);
        const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
        try {
          if (!(await handle.stat()).isFile()) throw new AgentError('INVALID_PARAMS', `'${file}' in ${description} is not a file`, { field: 'path', details: { path: file } });
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
      const absolute = target(file);
      try {
        if (!(await inside(await nearestReal(absolute)))) throw escaped(file);
        await mkdir(path.dirname(absolute), { recursive: true });
        // Checked again once the folders exist: a link among them must not lead outside.
        if (!(await inside(await realpath(path.dirname(absolute))))) throw escaped(file);
        const handle = await open(absolute, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
        try {
          await handle.writeFile(bytes);
        } finally {
          await handle.close();
        }
      } catch (error) {
        if (codeOf(error) === 'ELOOP') throw escaped(file);
        throw failure('write', file, error);
      }
    },
  };
}
