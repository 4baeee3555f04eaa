/**
 * openBeneath: opens a file under a root folder by walking its path one component at a time and
 * never following a symbolic link, so what is opened is what was checked, whatever another
 * process renames or links meanwhile (issue 24: a check of the path followed by an open by name
 * lost that race dozens of times in 900 reads).
 *
 * On Linux every step is relative to the descriptor of the folder before it, as `openat` would
 * be: `/proc/self/fd/<folder>/<name>` names `<name>` inside the very folder that descriptor holds,
 * and `O_NOFOLLOW` refuses a link as that last component. A folder swapped for a link after it was
 * opened changes nothing: the walk goes on from the descriptor, not the name. Elsewhere (no
 * working `/proc/self/fd`), each folder is checked with `lstat`, the file is opened by name, and
 * then the folders, the file and the folders again must be the same ones (device and inode) as
 * before and as the descriptor holds. That narrows the race but cannot close it: a process that
 * swaps and restores a folder between those checks still wins now and then (docs/security.md).
 *
 * Either way the file must be a regular file with one link: a hard link inside the root to an
 * outside file is the outside file. The file is opened without truncation: a writer truncates
 * through the descriptor, once it is checked.
 */
import { constants, type BigIntStats } from 'node:fs';
import { lstat, mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

const { O_RDONLY, O_WRONLY, O_CREAT, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** Why a path was refused: a symbolic link on it, a file with more than one link, not a regular file. */
export type BeneathRefusalReason = 'link' | 'hard-link' | 'not-a-file';

export class BeneathRefusal extends Error {
  constructor(readonly reason: BeneathRefusalReason) {
    super(`refused: ${reason}`);
  }
}

export type BeneathMode = 'read' | 'write';

/** Folders are opened as folders, never through a link; files also without blocking on a FIFO. */
const FOLDER_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
const FILE_FLAGS: Record<BeneathMode, number> = {
  read: O_RDONLY | O_NOFOLLOW | O_NONBLOCK,
  write: O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK,
};

const DESCRIPTOR_FOLDER = '/proc/self/fd';
let descriptorPaths: Promise<boolean> | undefined;

/** True where `/proc/self/fd/<n>/<name>` resolves relative to descriptor n (Linux), tried once on a real folder. */
export function hasDescriptorPaths(folder: string): Promise<boolean> {
  return (descriptorPaths ??= probeDescriptorPaths(folder));
}

async function probeDescriptorPaths(folder: string): Promise<boolean> {
  if (process.platform !== 'linux') return false;
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, FOLDER_FLAGS);
    const [held, named] = await Promise.all([
      handle.stat({ bigint: true }),
      stat(`${DESCRIPTOR_FOLDER}/${handle.fd}/.`, { bigint: true }),
    ]);
    return sameNode(held, named);
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}

/**
 * Opens `parts` (a normal rooted path, split) under `root` (a real path, no link on it). Read:
 * undefined when the file or a folder on the way does not exist. Write: missing folders are made
 * and the file created; it is not truncated. Throws BeneathRefusal, or the system's error.
 */
export async function openBeneath(
  root: string,
  parts: readonly string[],
  mode: BeneathMode,
  options: { portable?: boolean } = {},
): Promise<FileHandle | undefined> {
  const handle =
    options.portable !== true && (await hasDescriptorPaths(root))
      ? await openByDescriptors(root, parts, mode)
      : await openByNameChecked(root, parts, mode);
  if (handle === undefined) return undefined;
  try {
    const stats = await handle.stat({ bigint: true });
    if (!stats.isFile()) throw new BeneathRefusal('not-a-file');
    if (stats.nlink > 1n) throw new BeneathRefusal('hard-link');
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function openByDescriptors(
  root: string,
  parts: readonly string[],
  mode: BeneathMode,
): Promise<FileHandle | undefined> {
  let folder = await open(root, FOLDER_FLAGS);
  try {
    for (const part of parts.slice(0, -1)) {
      const next = await openFolder(`${DESCRIPTOR_FOLDER}/${folder.fd}/${part}`, mode);
      if (next === undefined) return undefined;
      await folder.close();
      folder = next;
    }
    return await openFile(`${DESCRIPTOR_FOLDER}/${folder.fd}/${parts[parts.length - 1]}`, mode);
  } finally {
    await folder.close();
  }
}

/** A folder on the way: opened without following a link; made first when writing. */
async function openFolder(at: string, mode: BeneathMode): Promise<FileHandle | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await open(at, FOLDER_FLAGS);
    } catch (error) {
      const code = codeOf(error);
      if (code === 'ENOENT' && mode === 'write' && attempt === 0) {
        await mkdir(at).catch((made: unknown) => {
          if (codeOf(made) !== 'EEXIST') throw made;
        });
        continue;
      }
      if (code === 'ENOENT') return undefined;
      if (code === 'ENOTDIR' || code === 'ELOOP') {
        if (await isLink(at)) throw new BeneathRefusal('link');
        if (mode === 'read') return undefined;
      }
      throw error;
    }
  }
}

async function openFile(at: string, mode: BeneathMode): Promise<FileHandle | undefined> {
  try {
    return await open(at, FILE_FLAGS[mode], 0o644);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ELOOP') throw new BeneathRefusal('link');
    if (code === 'EISDIR') throw new BeneathRefusal('not-a-file');
    if (code === 'ENOENT' && mode === 'read') return undefined;
    throw error;
  }
}

/** Without descriptor paths: check the folders, open by name, then check that nothing moved. */
async function openByNameChecked(
  root: string,
  parts: readonly string[],
  mode: BeneathMode,
): Promise<FileHandle | undefined> {
  const folders: Array<{ at: string; stats: BigIntStats }> = [];
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = path.join(at, part);
    let stats = await lstatOrUndefined(at);
    if (stats === undefined && mode === 'write') {
      await mkdir(at).catch((made: unknown) => {
        if (codeOf(made) !== 'EEXIST') throw made;
      });
      stats = await lstatOrUndefined(at);
    }
    if (stats === undefined) return undefined;
    if (stats.isSymbolicLink()) throw new BeneathRefusal('link');
    if (!stats.isDirectory()) {
      if (mode === 'read') return undefined;
      throw Object.assign(new Error(`not a folder: ${part}`), { code: 'ENOTDIR' });
    }
    folders.push({ at, stats });
  }
  const file = await openFile(path.join(at, parts[parts.length - 1]!), mode);
  if (file === undefined) return undefined;
  try {
    const opened = await file.stat({ bigint: true });
    // The folders, the file by name, the folders again: a swap must be undone twice to pass.
    let same = await foldersUnchanged(folders);
    const now = await lstatOrUndefined(path.join(at, parts[parts.length - 1]!));
    same &&= now !== undefined && !now.isSymbolicLink() && sameNode(now, opened);
    same &&= await foldersUnchanged(folders);
    if (!same) throw new BeneathRefusal('link');
    return file;
  } catch (error) {
    await file.close();
    throw error;
  }
}

async function foldersUnchanged(folders: ReadonlyArray<{ at: string; stats: BigIntStats }>): Promise<boolean> {
  for (const folder of folders) {
    const again = await lstatOrUndefined(folder.at);
    if (again === undefined || !again.isDirectory() || !sameNode(again, folder.stats)) return false;
  }
  return true;
}

function sameNode(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

async function lstatOrUndefined(at: string): Promise<BigIntStats | undefined> {
  try {
    return await lstat(at, { bigint: true });
  } catch (error) {
    if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') return undefined;
    throw error;
  }
}

async function isLink(at: string): Promise<boolean> {
  return (await lstatOrUndefined(at))?.isSymbolicLink() === true;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
