/**
 * The file operations the directory stores need, each mapping a file-system failure to
 * STORAGE_ERROR with the path and the system's reason (ENOSPC, EACCES, …).
 */
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, open, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { messageOf, storageError, type AgentError } from '../../src/host-storage.js';

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** What each file of a trace directory is, by its name (messages name the kind, not the path). */
const FILE_KINDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^record\.json$/, 'run record'],
  [/^events\.ndjson$/, 'event log'],
  [/^checkpoint\.json$/, 'checkpoint'],
  [/^claims$/, 'checkpoint claims'],
  [/^lease\.\d+$/, 'lease'],
  [/^live\.ndjson$/, 'live event log'],
  [/^resume-point\.json$/, 'node checkpoint'],
  [/^tools$/, 'recorded tool results'],
];

/**
 * A file of a trace directory as messages name it: its kind, its run and its path inside the
 * directory (`the run record of run 'abc' (runs/abc/record.json)`), never the host's absolute path,
 * which an HTTP answer must not carry.
 */
export function describeFile(filePath: string): { what: string; file: string } {
  const parts = filePath.split(/[\\/]+/);
  if (parts.at(-1) === 'run-index.ndjson') return { what: 'the run index', file: 'run-index.ndjson' };
  const top = Math.max(parts.lastIndexOf('runs'), parts.lastIndexOf('durable'), parts.lastIndexOf('insights'));
  if (top < 0) return { what: 'a file', file: parts.at(-1) ?? '' };
  const inside = parts.slice(top);
  const file = inside.join('/');
  if (inside[0] === 'insights') return { what: `the insights of agent file '${inside[1] ?? ''}'`, file };
  const run = inside[1];
  const name = inside[2];
  if (run === undefined) return { what: `the ${inside[0]} directory`, file };
  const kind =
    name === undefined ? 'directory' : (FILE_KINDS.find(([pattern]) => pattern.test(name))?.[1] ?? `file '${name}'`);
  return { what: `the ${kind} of run '${run}'`, file };
}

/** The system's reason without the path Node appends to it (`ENOSPC: no space left on device`). */
function reasonOf(error: unknown): string {
  return messageOf(error).replace(/, \w+ '[^']*'(?: -> '[^']*')?$/, '');
}

/**
 * Wraps a file-system failure as STORAGE_ERROR naming the operation, the kind of file and its run
 * (describeFile), and the system's reason (`details.reason`: ENOSPC, EACCES, EROFS, …).
 */
export function traceFileFailure(operation: string, filePath: string, error: unknown): AgentError {
  const { what, file } = describeFile(filePath);
  return storageError(
    error,
    `trace directory: cannot ${operation} ${what} (${file})`,
    { file, ...(errorCode(error) !== undefined ? { reason: errorCode(error) } : {}) },
    reasonOf(error),
  );
}

/** The file's text, or undefined when it does not exist. */
export async function readTextIfExists(filePath: string): Promise<string | undefined> {
  try {
    return await readFile(filePath, 'utf8');
  } catch (error) {
    // ENOTDIR: a stray file where a run directory would be (e.g. .DS_Store) holds no record.
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return undefined;
    throw traceFileFailure('read', filePath, error);
  }
}

/** Writes a whole file atomically: a temporary file in the same directory, then a rename. */
export async function writeAtomic(filePath: string, text: string): Promise<void> {
  const temporary = `${filePath}.${randomUUID()}.tmp`;
  try {
    await mkdir(path.dirname(filePath), { recursive: true });
    await writeFile(temporary, text, 'utf8');
    await rename(temporary, filePath);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw traceFileFailure('write', filePath, error);
  }
}

/** Appends text to a file, creating it and its directory. */
export async function appendText(filePath: string, text: string): Promise<void> {
  try {
    await mkdir(path.dirname(filePath), { recursive: true });
    await appendFile(filePath, text, 'utf8');
  } catch (error) {
    throw traceFileFailure('append to', filePath, error);
  }
}

/** Creates an empty file only if it does not exist yet; true when this call created it. */
export async function createExclusive(filePath: string): Promise<boolean> {
  try {
    await mkdir(path.dirname(filePath), { recursive: true });
    const handle = await open(filePath, 'wx');
    await handle.close();
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw traceFileFailure('create', filePath, error);
  }
}

/** Removes a file or directory tree; a missing one is fine. */
export async function removePath(filePath: string): Promise<void> {
  try {
    await rm(filePath, { recursive: true, force: true });
  } catch (error) {
    throw traceFileFailure('remove', filePath, error);
  }
}

/** Names in a directory, or [] when it does not exist. */
export async function listDirectory(directory: string): Promise<string[]> {
  try {
    return await readdir(directory);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return [];
    throw traceFileFailure('list', directory, error);
  }
}
