/**
 * The run index of the file store (run-index.ts): a page reads the records of its runs and no
 * others, in a later process too; the index is derived (a lost, torn or missing index never hides
 * a run, a run removed by hand is not listed) and follows what another process writes.
 */
import { appendFile, mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeRun } from '../../src/testing/storage-conformance.js';
import type { RunRecord, TraceStore } from '../../src/core/trace-store.js';

const reads = vi.hoisted(() => ({ records: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs/promises')>();
  const readFileCounted = ((file: unknown, ...rest: unknown[]) => {
    if (String(file).endsWith('record.json')) reads.records++;
    return (original.readFile as (...args: unknown[]) => unknown)(file, ...rest);
  }) as typeof original.readFile;
  return { ...original, default: { ...original, readFile: readFileCounted }, readFile: readFileCounted };
});

const { createFsStores } = await import('./index.js');
const { safeName } = await import('./safe-name.js');

const directories: string[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

async function storeDirectory(): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), 'tea-run-index-'));
  directories.push(directory);
  return directory;
}

/** `count` runs, run-0000 the oldest, alternating agents a and b. */
async function writeRuns(store: TraceStore, count: number, from = 0): Promise<void> {
  for (let index = from; index < from + count; index += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, from + count - index) }, (_, offset) =>
        store.putRun(
          makeRun(
            `run-${String(index + offset).padStart(4, '0')}`,
            (index + offset) % 2 === 0 ? 'a' : 'b',
            index + offset,
          ),
        ),
      ),
    );
  }
}

async function everyPage(store: TraceStore, options: { agent?: string; limit: number }): Promise<RunRecord[]> {
  const runs: RunRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listRuns({ ...options, ...(cursor !== undefined ? { cursor } : {}) });
    runs.push(...page.runs);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return runs;
}

const newestFirst = (count: number, agent?: string) =>
  Array.from({ length: count }, (_, index) => count - 1 - index)
    .filter((index) => agent === undefined || (index % 2 === 0 ? 'a' : 'b') === agent)
    .map((index) => `run-${String(index).padStart(4, '0')}`);

describe('fs run index', () => {
  it('a page reads the records of its runs only, in a later process too', async () => {
    const directory = await storeDirectory();
    await writeRuns(createFsStores(directory).traceStore, 600);
    const later = createFsStores(directory).traceStore;
    reads.records = 0;
    const page = await later.listRuns({ limit: 10 });
    expect(page.runs.map((run) => run.run_id)).toEqual(newestFirst(600).slice(0, 10));
    // The page's ten records and the one that says more follow (read in one batch of 32 at most).
    expect(reads.records).toBeLessThanOrEqual(32);
    reads.records = 0;
    const agentPage = await later.listRuns({ agent: 'b', limit: 5, cursor: page.cursor! });
    expect(agentPage.runs.map((run) => run.run_id)).toEqual([
      'run-0589',
      'run-0587',
      'run-0585',
      'run-0583',
      'run-0581',
    ]);
    expect(reads.records).toBeLessThanOrEqual(32);
  });

  it('pages every run once, newest first, by agent too', async () => {
    const directory = await storeDirectory();
    const { traceStore } = createFsStores(directory);
    await writeRuns(traceStore, 130);
    expect((await everyPage(traceStore, { limit: 7 })).map((run) => run.run_id)).toEqual(newestFirst(130));
    expect((await everyPage(traceStore, { agent: 'a', limit: 9 })).map((run) => run.run_id)).toEqual(
      newestFirst(130, 'a'),
    );
  });

  it('is derived: a missing or torn index, a lost line, a run removed by hand change nothing that is listed', async () => {
    const directory = await storeDirectory();
    await writeRuns(createFsStores(directory).traceStore, 40);
    const indexPath = path.join(directory, 'run-index.ndjson');
    const lines = (await readFile(indexPath, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(40);
    // Lines of runs 10-19 lost, a torn line at the end, a line that is not JSON.
    await writeFile(
      indexPath,
      [...lines.filter((line) => !/run-001\d/.test(line)), 'not json', ''].join('\n') + '{"run_id":"run-00',
    );
    await rm(path.join(directory, 'runs', safeName('run-0003')), { recursive: true });
    const expected = newestFirst(40).filter((id) => id !== 'run-0003');
    expect((await everyPage(createFsStores(directory).traceStore, { limit: 6 })).map((run) => run.run_id)).toEqual(
      expected,
    );
    await rm(indexPath);
    expect((await everyPage(createFsStores(directory).traceStore, { limit: 50 })).map((run) => run.run_id)).toEqual(
      expected,
    );
  });

  it('follows runs another process writes and deletes', async () => {
    const directory = await storeDirectory();
    const here = createFsStores(directory).traceStore;
    const there = createFsStores(directory).traceStore;
    await writeRuns(here, 5);
    expect((await here.listRuns()).runs).toHaveLength(5);
    await writeRuns(there, 5, 5);
    await there.deleteRun('run-0000');
    expect((await here.listRuns()).runs.map((run) => run.run_id)).toEqual(newestFirst(10).slice(0, 9));
  });

  it('an index line appended by another process while this one reads is read once it is whole', async () => {
    const directory = await storeDirectory();
    const { traceStore } = createFsStores(directory);
    await writeRuns(traceStore, 2);
    const indexPath = path.join(directory, 'run-index.ndjson');
    const other = createFsStores(directory).traceStore;
    await other.putRun(makeRun('run-0002', 'a', 2));
    const last = (await readFile(indexPath, 'utf8')).trim().split('\n').at(-1)!;
    await writeFile(indexPath, (await readFile(indexPath, 'utf8')).slice(0, -last.length - 1) + last.slice(0, 10));
    expect((await traceStore.listRuns()).runs.map((run) => run.run_id)).toEqual(['run-0002', 'run-0001', 'run-0000']);
    await appendFile(indexPath, last.slice(10) + '\n');
    expect((await traceStore.listRuns()).runs.map((run) => run.run_id)).toEqual(['run-0002', 'run-0001', 'run-0000']);
  });

  it('a run directory that had no record when runs/ was read is listed once its record comes, runs/ unchanged', async () => {
    const directory = await storeDirectory();
    const { traceStore } = createFsStores(directory);
    await writeRuns(traceStore, 2);
    // Another process made the run's directory (its events first) and writes its record later,
    // without an index line (a full disk refused it): runs/ itself does not change then.
    await mkdir(path.join(directory, 'runs', 'late'), { recursive: true });
    await utimes(path.join(directory, 'runs'), new Date(Date.now() - 10_000), new Date(Date.now() - 10_000));
    expect((await traceStore.listRuns()).runs).toHaveLength(2);
    expect((await traceStore.listRuns()).runs).toHaveLength(2);
    const before = (await stat(path.join(directory, 'runs'))).mtimeMs;
    await writeFile(path.join(directory, 'runs', 'late', 'record.json'), JSON.stringify(makeRun('late', 'a', 5)));
    expect((await stat(path.join(directory, 'runs'))).mtimeMs).toBe(before);
    expect((await traceStore.listRuns()).runs.map((run) => run.run_id)).toEqual(['late', 'run-0001', 'run-0000']);
  });

  it('retention reads only the records it may remove; running and unreadable runs are kept', async () => {
    const directory = await storeDirectory();
    await writeRuns(createFsStores(directory).traceStore, 300);
    const { traceStore } = createFsStores(directory);
    await traceStore.putRun(makeRun('run-0001', 'b', 1, { status: 'running' }));
    await writeFile(path.join(directory, 'runs', safeName('run-0002'), 'record.json'), '{"torn":');
    reads.records = 0;
    // Past the newest 290: runs 0-9, of which 1 (running) and 2 (unreadable) stay.
    expect(await traceStore.applyRetention({ maxRuns: 290 })).toBe(8);
    expect(reads.records).toBe(10);
    // makeRun's runs are from 2026-01-01 00:00 on, a minute apart: by age, runs 10-99 (created and
    // updated before 01:40) go; the records of the 200 newer ones are not read.
    reads.records = 0;
    expect(await traceStore.applyRetention({ maxAgeMs: Date.now() - Date.UTC(2026, 0, 1, 1, 40) })).toBe(90);
    expect(reads.records).toBe(92);
    expect((await everyPage(traceStore, { limit: 1000 })).map((run) => run.run_id)).toEqual([
      ...newestFirst(300).slice(0, 200),
      'run-0001',
    ]);
  });

  it('rewrites the index without the runs that are gone once they are most of it', async () => {
    const directory = await storeDirectory();
    const { traceStore } = createFsStores(directory);
    await writeRuns(traceStore, 1150);
    expect(await traceStore.applyRetention({ maxRuns: 50 })).toBe(1100);
    expect((await everyPage(traceStore, { limit: 1000 })).map((run) => run.run_id)).toEqual(
      newestFirst(1150).slice(0, 50),
    );
    const lines = (await readFile(path.join(directory, 'run-index.ndjson'), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(50);
  });
});
