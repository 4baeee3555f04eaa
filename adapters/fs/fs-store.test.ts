import { chmod, mkdtemp, readFile, rm, writeFile, appendFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  describeTraceStoreConformance,
  makeCheckpoint,
  makeEvent,
  makeRun,
  ODD_NAMES,
} from '../../src/testing/storage-conformance.js';
import { createFsStores } from './index.js';
import { safeName } from './safe-name.js';

async function temporaryDirectory(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'tea-fs-store-'));
}

describeTraceStoreConformance('fs', async () => {
  const directory = await temporaryDirectory();
  return { ...createFsStores(directory), cleanup: () => rm(directory, { recursive: true, force: true }) };
});

describe('fs store specifics', () => {
  it('maps every odd id to a distinct, portable file name', () => {
    const names = [...ODD_NAMES, '', 'con', 'a_41', 'aA', 'x'.repeat(301)].map(safeName);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(name).toMatch(/^[a-z0-9_~-]+$/);
      expect(name.length).toBeLessThanOrEqual(120);
      expect(['.', '..', 'con']).not.toContain(name);
    }
    expect(safeName('Case')).not.toBe(safeName('case'));
  });

  it('lets a later process (a new store on the same directory) read the trace and resume', async () => {
    const directory = await temporaryDirectory();
    try {
      const first = createFsStores(directory);
      await first.traceStore.putRun(makeRun('run-1', 'agent', 1, { status: 'interrupted' }));
      await first.traceStore.appendEvents('run-1', [makeEvent('run-1', 1), makeEvent('run-1', 2)]);
      await first.checkpointStore.save(makeCheckpoint('run-1', 'cp-1'));
      await first.traceStore.flush('run-1');

      const second = createFsStores(directory);
      expect((await second.traceStore.getRun('run-1'))?.status).toBe('interrupted');
      expect((await second.checkpointStore.loadLatest('run-1'))?.checkpoint_id).toBe('cp-1');
      expect(await second.checkpointStore.claim('run-1', 'cp-1')).toBe(true);
      expect(await first.checkpointStore.claim('run-1', 'cp-1')).toBe(false);
      await second.traceStore.appendEvents('run-1', [makeEvent('run-1', 3)]);
      await second.traceStore.flush('run-1');
      expect((await first.traceStore.readEvents('run-1')).map((event) => event.seq)).toEqual([1, 2, 3]);
      const lines = (await readFile(path.join(directory, 'runs', 'run-1', 'events.ndjson'), 'utf8')).trim().split('\n');
      expect(lines.map((line) => JSON.parse(line).seq)).toEqual([1, 2, 3]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('appends buffered events every 200 events and the rest on flush', async () => {
    const directory = await temporaryDirectory();
    try {
      const { traceStore } = createFsStores(directory);
      for (let seq = 1; seq <= 250; seq++) await traceStore.appendEvents('run-1', [makeEvent('run-1', seq)]);
      const eventsPath = path.join(directory, 'runs', 'run-1', 'events.ndjson');
      expect((await readFile(eventsPath, 'utf8')).trim().split('\n')).toHaveLength(200);
      await traceStore.flush('run-1');
      expect((await readFile(eventsPath, 'utf8')).trim().split('\n')).toHaveLength(250);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('ignores a torn last line but reports a corrupt line in the middle as STORAGE_ERROR', async () => {
    const directory = await temporaryDirectory();
    try {
      const { traceStore } = createFsStores(directory);
      await traceStore.appendEvents('run-1', [makeEvent('run-1', 1)]);
      await traceStore.flush('run-1');
      const eventsPath = path.join(directory, 'runs', 'run-1', 'events.ndjson');
      await appendFile(eventsPath, '{"type":"log","run_id":"run-1","se');
      expect((await traceStore.readEvents('run-1')).map((event) => event.seq)).toEqual([1]);
      await writeFile(eventsPath, 'not json\n' + JSON.stringify(makeEvent('run-1', 2)) + '\n');
      await expect(traceStore.readEvents('run-1')).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('leaves no temporary files behind and keeps concurrent appends whole', async () => {
    const directory = await temporaryDirectory();
    try {
      const { traceStore } = createFsStores(directory);
      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          traceStore.appendEvents('run-1', [makeEvent('run-1', index + 1, 'log', { pad: 'y'.repeat(70_000) })]),
        ),
      );
      await Promise.all(Array.from({ length: 5 }, (_, index) => traceStore.putRun(makeRun('run-1', 'agent', index))));
      await traceStore.flush('run-1');
      expect((await traceStore.readEvents('run-1')).map((event) => event.seq)).toEqual(
        Array.from({ length: 20 }, (_, index) => index + 1),
      );
      expect((await readdir(path.join(directory, 'runs', 'run-1'))).sort()).toEqual(['events.ndjson', 'record.json']);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it.skipIf(process.getuid?.() === 0)('maps a file-system failure to STORAGE_ERROR with the path', async () => {
    const directory = await temporaryDirectory();
    try {
      const { traceStore } = createFsStores(directory);
      await traceStore.putRun(makeRun('run-1', 'agent', 1));
      await chmod(path.join(directory, 'runs', 'run-1'), 0o500);
      await expect(traceStore.putRun(makeRun('run-1', 'agent', 2))).rejects.toMatchObject({
        code: 'STORAGE_ERROR',
        details: { reason: 'EACCES' },
      });
      await chmod(path.join(directory, 'runs', 'run-1'), 0o700);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('lists runs past stray files in the runs directory', async () => {
    const directory = await temporaryDirectory();
    try {
      const { traceStore } = createFsStores(directory);
      await traceStore.putRun(makeRun('run-1', 'agent', 1));
      await writeFile(path.join(directory, 'runs', '.DS_Store'), 'x');
      expect((await traceStore.listRuns()).runs.map((run) => run.run_id)).toEqual(['run-1']);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('reports a store directory that is a file as STORAGE_ERROR', async () => {
    const directory = await temporaryDirectory();
    try {
      await writeFile(path.join(directory, 'runs'), 'not a directory');
      const { traceStore } = createFsStores(directory);
      await expect(traceStore.putRun(makeRun('run-1', 'agent', 1))).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
      await expect(traceStore.listRuns()).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
