/** Where the Python process keeps its start-up snapshot unless the host names a file (python-process.ts). */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `.cache/python/pyodide-<version>-<hash>.snapshot` in the folder above the built process (the package's
 * root for dist/). The hash is the built thread's (python-worker.js: the stripping, the runner and the
 * modules imported before the snapshot), so a changed thread never restores an old interpreter;
 * Pyodide itself refuses a snapshot of another build of Pyodide.
 */
export function defaultSnapshotFile(pyodideDir: string, workerScript: string): string {
  let version = 'unknown';
  try {
    version =
      (JSON.parse(readFileSync(path.join(pyodideDir, 'package.json'), 'utf8')) as { version?: string }).version ??
      version;
  } catch {
    // A Pyodide folder without package.json (TEA_EDGE_PYODIDE_DIR pointing at bare files): the build check still holds.
  }
  const hash = createHash('sha256').update(readFileSync(workerScript)).digest('hex').slice(0, 12);
  return path.join(path.dirname(workerScript), '..', '.cache', 'python', `pyodide-${version}-${hash}.snapshot`);
}
