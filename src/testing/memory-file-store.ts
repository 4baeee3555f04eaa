/**
 * A FileStore held in memory: the reference implementation of the file seam (it runs the file
 * store conformance suite like every other), and a file root for tests of file.read / file.write.
 */
import { AgentError } from '../core/agent-error.js';
import type { FileStore } from '../core/file-store.js';

/** A FileStore whose files live in a Map (path → bytes); `files` shows what was written. */
export function createMemoryFileStore(
  initial: Record<string, string | Uint8Array> = {},
): FileStore & { readonly files: ReadonlyMap<string, Uint8Array> } {
  const files = new Map<string, Uint8Array>();
  const isFolder = (path: string) => [...files.keys()].some((file) => file.startsWith(`${path}/`));
  const notAFile = (path: string) =>
    new AgentError('INVALID_PARAMS', `'${path}' in memory is not a file`, {
      field: 'path',
      details: { path, reason: 'not-a-file' },
    });
  const store = {
    description: 'memory',
    files,
    async read(path: string, maxBytes: number) {
      const bytes = files.get(path);
      if (bytes === undefined) {
        if (isFolder(path)) throw notAFile(path);
        return undefined;
      }
      return bytes.slice(0, maxBytes + 1);
    },
    async write(path: string, bytes: Uint8Array) {
      if (isFolder(path)) throw notAFile(path);
      const parts = path.split('/');
      for (let end = 1; end < parts.length; end++) {
        const folder = parts.slice(0, end).join('/');
        if (files.has(folder))
          throw new AgentError('STORAGE_ERROR', `cannot write '${path}' in memory: '${folder}' is a file`, {
            details: { path },
          });
      }
      files.set(path, bytes.slice());
    },
  };
  for (const [path, content] of Object.entries(initial))
    files.set(path, typeof content === 'string' ? new TextEncoder().encode(content) : content.slice());
  return store;
}
