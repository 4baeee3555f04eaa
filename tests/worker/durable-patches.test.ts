/**
 * Node checkpoints as a base and patches on the Node file store (worker/durable-fs.ts): a process
 * that takes over a dead one's run reads the checkpoint the patches make, with the role and the
 * restart count of the newest write; a new base drops the patches; a corrupt patch makes the
 * run's checkpoint unreadable (its run is closed failed by the caller), never an older state.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointEncoder } from '../../src/graph/checkpoint-codec.js';
import type { CheckpointHead } from '../../src/graph/node-checkpoint.js';
import { createMemoryStores } from '../../src/storage/memory-store.js';
import { DurableRunFiles } from '../../worker/node/durable-fs.js';

const LEASE_MS = 40;
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const opened: DurableRunFiles[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const files of opened.splice(0)) files.close();
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

function head(step: number): CheckpointHead {
  return { run_id: 'run-p', agent: 'a', node: 'work', skip_interrupt_before: false, seq: step, usage: { steps: step, llm_calls: 0, tokens: 0 }, model_state: { scripted_calls: {} }, budget_started_at: 0, run_created_at: '2026-01-01T00:00:00.000Z' };
}

async function open(directory: string): Promise<DurableRunFiles> {
  const files = new DurableRunFiles(directory, createMemoryStores().traceStore, LEASE_MS);
  opened.push(files);
  return files;
}

/** A process holding run-p writes `steps` node checkpoints of a 20 KB state, then dies (its heartbeat stops). */
async function dyingProcess(steps: number): Promise<{ directory: string; runDirectory: string }> {
  const directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-patches-'));
  folders.push(directory);
  const files = await open(directory);
  expect(await files.claim('run-p')).toBe(true);
  const durability = files.durability('run-p', 'operator');
  const encoder = new CheckpointEncoder();
  const state: Record<string, unknown> = { big: 'x'.repeat(20_000), i: 0 };
  for (let step = 1; step <= steps; step++) {
    state.i = step;
    const encoded = encoder.encode({ head: head(step), state, memory: new Map([['seen', step]]) }, copy);
    await durability.saveProgress(encoded.write);
    encoded.commit();
  }
  files.close();
  await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 3));
  return { directory, runDirectory: path.join(directory, 'durable', 'run-p') };
}

describe('node checkpoints as base and patches, Node file store', () => {
  it('a process taking over reads the checkpoint the patches make, with the role and restart count; counting a restart writes a base and drops them', async () => {
    const { directory, runDirectory } = await dyingProcess(12);
    expect((await readdir(path.join(runDirectory, 'patches'))).sort()).toHaveLength(11);
    const next = await open(directory);
    const [orphan] = await next.claimOrphans();
    expect(orphan?.unreadable).toBeUndefined();
    expect(orphan?.point).toMatchObject({ role: 'operator', restarts: 0, checkpoint: { ...head(12), state: { i: 12 }, memory: { seen: 12 } } });
    expect((orphan!.point!.checkpoint.state.big as string).length).toBe(20_000);

    const counted = await next.countRestart('run-p', orphan!.point!);
    expect(counted.restarts).toBe(1);
    expect(await readdir(runDirectory)).not.toContain('patches');
    next.release('run-p');
    next.close();
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 3));
    const [again] = await (await open(directory)).claimOrphans();
    expect(again?.point).toMatchObject({ role: 'operator', restarts: 1, checkpoint: { state: { i: 12 } } });
  });

  it('a corrupt or missing patch makes the checkpoint unreadable (STORAGE_ERROR naming the file), never an older state', async () => {
    const { directory, runDirectory } = await dyingProcess(6);
    await writeFile(path.join(runDirectory, 'patches', '3.json'), '{"patch": {"kind": "patch", ');
    const [corrupt] = await (await open(directory)).claimOrphans();
    expect(corrupt?.point).toBeUndefined();
    expect(corrupt?.unreadable?.code).toBe('STORAGE_ERROR');
    expect(corrupt?.unreadable?.message).toMatch(/3\.json/);

    const second = await dyingProcess(6);
    await rm(path.join(second.runDirectory, 'patches', '2.json'));
    const [gap] = await (await open(second.directory)).claimOrphans();
    expect(gap?.unreadable?.code).toBe('STORAGE_ERROR');
    expect(gap?.unreadable?.message).toMatch(/patch 2 of base .* is missing/);
  });
});
