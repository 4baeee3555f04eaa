/**
 * The Node hosts' seams for agent files and files (issue 13): `tea-edge run` and `resume` give a
 * run the calling agent's folder as its agent-file source (sub-runs of agent.*), and `--files DIR`
 * as its file root (file.read / file.write); `serve` gives its --agents folder and --files DIR.
 * Without --files, the file actions are refused with a typed error saying how to enable them.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { createRootedFileStore } from '../adapters/fs/rooted-file-store.js';
import { fileStoreAgentSource, type FileStore, type RunOptions } from '../src/host.js';
import { UsageError } from './args.js';

/** The agent-file source of a run of `agentFile`: its own folder, the run's agent named by its file name. */
export function agentFolderSeam(agentFile: string, acceptRace = false): Pick<RunOptions, 'agentFiles' | 'agentFile'> {
  return {
    agentFiles: fileStoreAgentSource(createRootedFileStore(path.dirname(path.resolve(agentFile)), { acceptRace })),
    agentFile: path.basename(agentFile),
  };
}

/**
 * The file root given with `--files DIR` (an existing folder), or undefined without the flag.
 * `acceptRace` (`--accept-file-race`): where only the racy walk exists (no /proc/self/fd), use it
 * rather than refuse every read and write (adapters/fs/rooted-file-store.ts).
 */
export function filesFlag(directory: string | undefined, acceptRace = false): FileStore | undefined {
  if (directory === undefined) return undefined;
  let isFolder = false;
  try {
    isFolder = statSync(directory).isDirectory();
  } catch {
    throw new UsageError(`--files ${directory}: no such folder`);
  }
  if (!isFolder) throw new UsageError(`--files ${directory}: not a folder`);
  return createRootedFileStore(directory, { acceptRace });
}
