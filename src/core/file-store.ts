/**
 * The file seam (`file.read` / `file.write`): what a host gives a run so agents can read and
 * write files under one root. Hosts: a rooted directory on Node (adapters/fs/rooted-file-store.ts,
 * `tea-edge run --files DIR`), OPFS in the browser (adapters/opfs/), an R2 binding on Workers
 * (adapters/r2/), Deno's file system under a root (adapters/deno-fs/). A run without one refuses
 * the file actions with a typed error saying how to enable them.
 *
 * Paths reaching a store are already normal rooted paths (`a/b.txt`, see src/util/rooted-path.ts):
 * no `..`, no absolute path, no backslash, no NUL, no `%`. Stores check again where their medium
 * can still escape (symbolic and hard links on a disk, and the disk changing between a check and
 * an open: docs/security.md, "The file root"). Failures are AgentErrors: NOT_FOUND (no such
 * file), INPUT_TOO_LARGE, STORAGE_ERROR (the medium failed).
 */
export interface FileStore {
  /** Names the root in messages: `directory ./data`, `OPFS`, `R2 bucket FILES`. */
  readonly description: string;
  /**
   * The file's bytes, or undefined when there is no such file. Reads at most `maxBytes + 1`
   * bytes, so a caller can tell a file over its cap without holding all of it.
   */
  read(path: string, maxBytes: number): Promise<Uint8Array | undefined>;
  /** Creates or replaces the file (and its folders). */
  write(path: string, bytes: Uint8Array): Promise<void>;
}
