/**
 * The file operations the directory stores need, each mapping a file-system failure to
 * STORAGE_ERROR with the path and the system's reason (ENOSPC, EACCES, …).
 */
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, open, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentError } from '../../src/errors/agent-error.js';
import { messageOf } from '../../src/util/message-of.js';

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Wraps a file-system failure as STORAGE_ERROR naming the operation and path. */
export function storageError(operation: string, filePath: string, error: unknown): AgentError {
  if (AgentError.isInstance(error)) return error;
  const reason = messageOf(error);
  return new AgentError('STORAGE_ERROR', `trace directory: cannot ${operation} ${filePath}: ${reason}`, {
    details: { path: filePath, ...(errorCode(error) !== undefined ? { reason: errorCode(error) } : {}) },
    cause: error,
  });
}

/** The file's text, or undefined when it does not exist. */
export async function readTextIfExists(filePath: string): Promise<string | undefined> {
  try {
    return await readFile(filePath, 'utf8');
  } catch (error) {
    // ENOTDIR: a stray file where a run directory would be (e.g. .DS_Store) holds no record.
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return undefined;
    throw storageError('read', filePath, error);
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
    throw storageError('write', filePath, error);
  }
}

/** Appends text to a file, creating it and its directory. */
export async function appendText(filePath: string, text: string): Promise<void> {
  try {
    await mkdir(path.dirname(filePath), { recursive: true });
    await appendFile(filePath, text, 'utf8');
  } catch (error) {
    throw storageError('append to', filePath, error);
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
    throw storageError('create', filePath, error);
  }
}

/** Removes a file or directory tree; a missing one is fine. */
export async function removePath(filePath: string): Promise<void> {
  try {
    await rm(filePath, { recursive: true, force: true });
  } catch (error) {
    throw storageError('remove', filePath, error);
  }
}

/** Names in a directory, or [] when it does not exist. */
export async function listDirectory(directory: string): Promise<string[]> {
  try {
    return await readdir(directory);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return [];
    throw storageError('list', directory, error);
  }
}
