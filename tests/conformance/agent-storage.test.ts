/**
 * The stores under a real engine run: an agent paused by an interrupt is traced and checkpointed,
 * then resumed through a NEW store instance over the same back-end (a later process for the
 * directory store, a reloaded page for IndexedDB), exactly once; stored events match the streamed
 * ones; secrets never reach the trace.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFsStores } from '../../adapters/fs/index.js';
import { createIndexedDbStores } from '../../adapters/indexeddb/index.js';
import type { AgentEvent } from '../../src/core/events.js';
import { loadAgent, resumeAgent, runAgent } from '../../src/index.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';
import type { CheckpointStore, TraceStore } from '../../src/core/trace-store.js';

interface Backend {
  name: string;
  /** Opens stores over the back-end; each call is a new instance over the same data (memory: the same instance). */
  open(): { traceStore: TraceStore; checkpointStore: CheckpointStore };
}

const directories: string[] = [];
afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

async function backends(): Promise<Backend[]> {
  const memory = createMemoryStores();
  const directory = await mkdtemp(path.join(tmpdir(), 'tea-agent-storage-'));
  directories.push(directory);
  const factory = new IDBFactory();
  return [
    { name: 'memory', open: () => memory },
    { name: 'fs', open: () => createFsStores(directory) },
    { name: 'indexeddb', open: () => createIndexedDbStores({ indexedDB: factory, requestPersistence: false }) },
  ];
}

async function drain(run: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

const agentFile = path.join(import.meta.dirname, '../agents/interrupt-before.yaml');

describe('stores under engine runs', async () => {
  for (const backend of await backends()) {
    it(`${backend.name}: an interrupted run is traced, resumed once through new store instances, and completes`, async () => {
      const agent = loadAgent(await readFile(agentFile, 'utf8'), { file: agentFile });
      const secret = 'sk-test-secret-value-123';
      const first = backend.open();
      const run = runAgent(
        agent,
        { who: `world ${secret}` },
        { ...first, runId: `run ${backend.name}/1`, secrets: { API_KEY: secret } },
      );
      const streamed = await drain(run);
      const paused = await run.result;
      expect(paused.status).toBe('interrupted');

      const stored = await first.traceStore.readEvents(run.runId);
      expect(stored).toEqual(JSON.parse(JSON.stringify(streamed)));
      expect(JSON.stringify(stored)).not.toContain(secret);
      expect(await first.traceStore.getRun(run.runId)).toMatchObject({
        status: 'interrupted',
        agent: 'interrupt-before',
      });

      const later = backend.open();
      expect((await later.checkpointStore.loadLatest(run.runId))?.checkpoint_id).toBe(paused.interrupt?.checkpoint_id);
      const resumed = resumeAgent(agent, run.runId, {}, { ...later, secrets: { API_KEY: secret } });
      const resumedEvents = await drain(resumed);
      const finished = await resumed.result;
      expect(finished.status).toBe('completed');
      expect(finished.state.published).toBe(true);

      const all = await backend.open().traceStore.readEvents(run.runId);
      expect(all.map((event) => event.seq)).toEqual(Array.from({ length: all.length }, (_, index) => index + 1));
      expect(all.slice(stored.length)).toEqual(JSON.parse(JSON.stringify(resumedEvents)));
      expect((await backend.open().traceStore.getRun(run.runId))?.status).toBe('completed');

      const again = resumeAgent(agent, run.runId, {}, backend.open());
      await drain(again).catch(() => undefined);
      await expect(again.result).resolves.toMatchObject({ status: 'failed' });
    });
  }
});
