/**
 * Fault injection for the file-directory stores of `tea-edge serve` (adapters/fs, worker/node/durable-fs.ts):
 * a wrapper of `node:fs/promises` installed with `vi.mock` that, per server instance (an
 * AsyncLocalStorage tag: every request, timer and run of a server started inside `instances.run`
 * carries it), fails the Nth matching operation with ENOSPC / EACCES / EROFS, tears or corrupts
 * what it writes, or hangs it for ever (a process killed at that step: nothing after it reaches the
 * disk). It also checks, at every removal, the invariant that recovery files never go before what
 * replaces them is durable, and keeps the violations it saw.
 *
 * @example
 * vi.mock('node:fs/promises', async (original) => (await import('./fs-faults.js')).wrapFs(await original()));
 * faults.add({ instance: 'a', kind: 'record', at: 2, error: 'ENOSPC', times: Infinity });
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The server instance an operation comes from (unset: the test itself, never faulted). */
export const instances = new AsyncLocalStorage<string>();

export type FileKind =
  | 'record'
  | 'events'
  | 'checkpoint'
  | 'claim'
  | 'lease'
  | 'live'
  | 'resume-point'
  | 'tool'
  | 'index'
  | 'directory'
  | 'root'
  | 'other';
export type Errno = 'ENOSPC' | 'EACCES' | 'EROFS';

export interface Fault {
  /** The instance whose operations it hits (default: every instance). */
  instance?: string;
  /** The kind of file (default: any). */
  kind?: FileKind;
  /** The run (its directory name) whose files it hits (default: any). */
  run?: string;
  /** `at` and `times` count each run's operations apart (every run hit at its own Nth). */
  perRun?: boolean;
  /** The operation (`readdir`, `write`, `rm`, …; default: any). */
  op?: string;
  /** Reads too (default: writes, creates, renames, removals only). */
  reads?: boolean;
  /** The matching operation it starts at, 1-based (default 1). */
  at?: number;
  /** How many matching operations from `at` it hits (default 1; Infinity: until removed). */
  times?: number;
  /** What happens: a system error, half the data written, garbage written, or no answer ever. */
  effect: Errno | 'torn' | 'corrupt' | 'hang';
}

interface ActiveFault extends Fault {
  seen: Map<string, number>;
  hit: Map<string, number>;
}

export interface Operation {
  instance: string | undefined;
  op: string;
  kind: FileKind;
  run: string | undefined;
  file: string;
}

const ERRNO_TEXT: Record<Errno, string> = {
  ENOSPC: 'no space left on device',
  EACCES: 'permission denied',
  EROFS: 'read-only file system',
};

class FaultPlan {
  private active: ActiveFault[] = [];
  /** Instances killed: every operation of theirs hangs. */
  readonly dead = new Set<string>();
  /** Every write-like operation, in order. */
  readonly log: Operation[] = [];
  /** Invariant violations seen at removals. */
  readonly violations: string[] = [];

  add(fault: Fault): void {
    this.active.push({ ...fault, seen: new Map(), hit: new Map() });
  }

  clear(): void {
    this.active = [];
  }

  kill(instance: string): void {
    this.dead.add(instance);
  }

  reset(): void {
    this.clear();
    this.dead.clear();
    this.log.length = 0;
    this.violations.length = 0;
  }

  /** The effect for an operation, if a fault takes it. */
  effectFor(operation: Operation, isRead: boolean): Fault['effect'] | undefined {
    if (operation.instance === undefined) return undefined;
    if (this.dead.has(operation.instance)) return 'hang';
    for (const fault of this.active) {
      if (fault.instance !== undefined && fault.instance !== operation.instance) continue;
      if (fault.kind !== undefined && fault.kind !== operation.kind) continue;
      if (fault.run !== undefined && fault.run !== operation.run) continue;
      if (fault.op !== undefined && fault.op !== operation.op) continue;
      if (isRead && fault.reads !== true) continue;
      const counter = fault.perRun === true ? (operation.run ?? '') : '';
      const seen = (fault.seen.get(counter) ?? 0) + 1;
      fault.seen.set(counter, seen);
      const hit = fault.hit.get(counter) ?? 0;
      if (seen < (fault.at ?? 1) || hit >= (fault.times ?? 1)) continue;
      fault.hit.set(counter, hit + 1);
      return fault.effect;
    }
    return undefined;
  }
}

export const faults = new FaultPlan();

/** The kind of a trace-directory file and its run, from its path (temporary files as their target). */
export function classify(file: string): { kind: FileKind; run: string | undefined } {
  const parts = file.replace(/\.[0-9a-f-]{36}\.tmp$/, '').split(/[\\/]+/);
  if (parts.at(-1) === 'run-index.ndjson') return { kind: 'index', run: undefined };
  const top = Math.max(parts.lastIndexOf('runs'), parts.lastIndexOf('durable'));
  if (top < 0) return { kind: 'other', run: undefined };
  // An ended segment renamed away before its removal (`.gone-<run>.<uuid>`) is still its run's.
  const run = parts[top + 1]?.replace(/^\.gone-(.*)\.[0-9a-f-]{36}$/, '$1');
  const name = parts[top + 2];
  const area = parts[top];
  if (run === undefined) return { kind: 'root', run };
  if (name === undefined) return { kind: 'directory', run };
  if (area === 'runs') {
    if (name === 'record.json') return { kind: 'record', run };
    if (name === 'events.ndjson') return { kind: 'events', run };
    if (name === 'checkpoint.json') return { kind: 'checkpoint', run };
    if (name === 'claims') return { kind: parts.length > top + 3 ? 'claim' : 'directory', run };
    return { kind: 'other', run };
  }
  if (/^lease\.\d+$/.test(name)) return { kind: 'lease', run };
  if (name === 'live.ndjson') return { kind: 'live', run };
  if (name === 'resume-point.json') return { kind: 'resume-point', run };
  // A node checkpoint after the first is a patch (src/graph/checkpoint-codec.ts).
  if (name === 'patches') return { kind: parts.length > top + 3 ? 'resume-point' : 'directory', run };
  if (name === 'tools') return { kind: parts.length > top + 3 ? 'tool' : 'directory', run };
  return { kind: 'other', run };
}

function errnoError(code: Errno, syscall: string, file: string): Error {
  return Object.assign(new Error(`${code}: ${ERRNO_TEXT[code]}, ${syscall} '${file}'`), {
    code,
    syscall,
    path: file,
    errno: -1,
  });
}

const never = () => new Promise<never>(() => undefined);

/** The record a run has on disk now ('missing', 'unreadable' or its status). */
function recordStatus(runsDirectory: string, run: string): string {
  const file = path.join(runsDirectory, run, 'record.json');
  if (!existsSync(file)) return 'missing';
  try {
    return String((JSON.parse(readFileSync(file, 'utf8')) as { status?: unknown }).status);
  } catch {
    return 'unreadable';
  }
}

/**
 * Nothing is deleted before its replacement is durable: a run's segment files go only once its
 * record says it stopped; its checkpoint goes only once its record says it ended (or a segment's
 * files still hold the run).
 */
function checkRemoval(file: string, instance: string | undefined): void {
  const { kind, run } = classify(file);
  if (run === undefined) return;
  const parts = file.split(/[\\/]+/);
  const top = Math.max(parts.lastIndexOf('runs'), parts.lastIndexOf('durable'));
  // A segment renamed away was checked when it was renamed; what is left of it is no one's.
  if (parts[top + 1]?.startsWith('.gone-')) return;
  const root = parts.slice(0, top).join(path.sep) || path.sep;
  const status = recordStatus(path.join(root, 'runs'), run);
  if (parts[top] === 'durable' && kind === 'directory' && status === 'running') {
    faults.violations.push(
      `${instance ?? 'test'} removed the segment files of run ${run} while its record says running`,
    );
  }
  if (kind === 'checkpoint' && (status === 'running' || status === 'interrupted')) {
    const segment = path.join(root, 'durable', run);
    const held = existsSync(segment) && readdirSync(segment).some((name) => name.startsWith('lease.'));
    if (!held)
      faults.violations.push(
        `${instance ?? 'test'} removed the checkpoint of run ${run} while its record says ${status} and no segment holds it`,
      );
  }
}

type FsModule = typeof import('node:fs/promises');

/** `node:fs/promises` with the plan applied (for `vi.mock`). */
export function wrapFs(actual: FsModule): FsModule {
  const operation = (op: string, file: unknown): Operation => ({
    instance: instances.getStore(),
    op,
    file: String(file),
    ...classify(String(file)),
  });

  function guarded<A extends unknown[], R>(
    op: string,
    call: (...args: A) => Promise<R>,
    options: { read?: boolean; data?: number; removal?: boolean } = {},
  ) {
    return (...args: A): Promise<R> => {
      const current = operation(op, args[0]);
      if (!options.read) faults.log.push(current);
      const effect = faults.effectFor(current, options.read === true);
      if (effect === 'hang') return never();
      if (effect === 'ENOSPC' || effect === 'EACCES' || effect === 'EROFS')
        return Promise.reject(errnoError(effect, op, current.file));
      if ((effect === 'torn' || effect === 'corrupt') && options.data !== undefined) {
        const data = String(args[options.data]);
        const changed = [...args] as unknown[];
        changed[options.data] =
          effect === 'torn'
            ? data.slice(0, Math.max(1, Math.floor(data.length / 2)))
            : `{"corrupt": ${data.slice(0, 8)}`;
        return call(...(changed as A));
      }
      if (options.removal) checkRemoval(current.file, current.instance);
      return call(...args);
    };
  }

  const wrapped = {
    writeFile: guarded('write', actual.writeFile as (...args: unknown[]) => Promise<void>, { data: 1 }),
    appendFile: guarded('append', actual.appendFile as (...args: unknown[]) => Promise<void>, { data: 1 }),
    mkdir: guarded('mkdir', actual.mkdir as (...args: unknown[]) => Promise<string | undefined>),
    // An open for reading only (the run index's tail) is a read; any other open creates or writes.
    open: (...args: unknown[]) =>
      guarded('open', actual.open as (...args: unknown[]) => Promise<import('node:fs/promises').FileHandle>, {
        read: args[1] === undefined || args[1] === 'r',
      })(...args),
    rm: guarded('rm', actual.rm as (...args: unknown[]) => Promise<void>, { removal: true }),
    unlink: guarded('unlink', actual.unlink as (...args: unknown[]) => Promise<void>, { removal: true }),
    // The heartbeat: time-driven, so counted with the reads (faulted only by faults with `reads`).
    utimes: guarded('utimes', actual.utimes as (...args: unknown[]) => Promise<void>, { read: true }),
    readFile: guarded('read', actual.readFile as (...args: unknown[]) => Promise<string>, { read: true }),
    readdir: guarded('readdir', actual.readdir as (...args: unknown[]) => Promise<string[]>, { read: true }),
    stat: guarded('stat', actual.stat as (...args: unknown[]) => Promise<import('node:fs').Stats>, { read: true }),
  };
  // A rename's target is what it writes: classify by it.
  const rename = (from: Parameters<FsModule['rename']>[0], to: Parameters<FsModule['rename']>[1]) => {
    const current = operation('rename', to);
    faults.log.push(current);
    const effect = faults.effectFor(current, false);
    if (effect === 'hang') return never();
    if (effect === 'ENOSPC' || effect === 'EACCES' || effect === 'EROFS')
      return Promise.reject(errnoError(effect, 'rename', current.file));
    // A segment renamed away is removed: the order of durability is checked then.
    if (path.basename(String(to)).startsWith('.gone-')) checkRemoval(String(from), current.instance);
    return actual.rename(from, to);
  };
  return { ...actual, ...wrapped, rename, default: { ...actual, ...wrapped, rename } } as unknown as FsModule;
}
