import { describe, expect, it } from 'vitest';
import { CheckpointEncoder, decodeCheckpoint, MAX_PATCHES } from './checkpoint-codec.js';
import type { CheckpointHead, CheckpointWrite } from './node-checkpoint.js';
import { AgentError } from '../core/agent-error.js';

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function head(step: number): CheckpointHead {
  return {
    run_id: 'run-1',
    agent: 'a',
    node: `n${step}`,
    skip_interrupt_before: false,
    seq: step * 2,
    usage: { steps: step, llm_calls: 0, tokens: 0 },
    model_state: { scripted_calls: {} },
    budget_started_at: 0,
    run_created_at: '2026-01-01T00:00:00.000Z',
  };
}

/** A store as the durable hosts keep one: a base replaces everything, a patch is appended. */
function store() {
  let base: unknown;
  let patches: unknown[] = [];
  return {
    save(write: CheckpointWrite) {
      const stored = copy(write);
      if (write.kind === 'base') {
        base = stored;
        patches = [];
      } else patches.push(stored);
    },
    read: () => decodeCheckpoint(base, patches, 'the test store'),
    get patches() {
      return patches;
    },
  };
}

/** The writes of `steps` checkpoints of a 10 KB state whose `i` counts the steps (a base, then patches). */
function countingSteps(steps: number): CheckpointWrite[] {
  const state: Record<string, unknown> = { big: 'b'.repeat(10_000), i: 0 };
  const encoder = new CheckpointEncoder();
  return Array.from({ length: steps }, (_, index) => {
    state.i = index + 1;
    const encoded = encoder.encode({ head: head(index + 1), state, memory: new Map() }, copy);
    encoded.commit();
    return copy(encoded.write);
  });
}

function expectCorrupt(read: () => unknown, words: RegExp): void {
  try {
    read();
  } catch (error) {
    expect(AgentError.isInstance(error) && error.code).toBe('STORAGE_ERROR');
    expect((error as Error).message).toMatch(words);
    return;
  }
  throw new Error('read did not fail');
}

describe('checkpoint codec', () => {
  it('writes a base, then only the keys that changed, and reading replays to the live checkpoint at every step', () => {
    const big = { text: 'x'.repeat(100_000) };
    const state: Record<string, unknown> = { big, i: 0, gone: 'soon' };
    const memory = new Map<string, unknown>([['m', { a: 1 }]]);
    const encoder = new CheckpointEncoder();
    const kept = store();
    const sizes: number[] = [];
    for (let step = 1; step <= 50; step++) {
      state.i = step;
      if (step === 3) delete state.gone;
      if (step === 4) memory.set('m', { a: 2 });
      if (step === 5) state.list = [step];
      const encoded = encoder.encode({ head: head(step), state, memory }, copy);
      kept.save(encoded.write);
      encoded.commit();
      sizes.push(encoded.size);
      expect(kept.read()).toEqual({ ...head(step), state: copy(state), memory: copy(Object.fromEntries(memory)) });
    }
    expect(sizes[0]).toBeGreaterThan(100_000);
    expect(Math.max(...sizes.slice(1))).toBeLessThan(1_000);
    expect(kept.patches).toHaveLength(49);
    const third = kept.patches[1] as { state: unknown };
    expect(third.state).toEqual({ set: { i: 3 }, unset: ['gone'] });
  });

  it('writes a new base once the patches outweigh the base, or after MAX_PATCHES of them', () => {
    const state: Record<string, unknown> = { small: 'y'.repeat(2_000), i: 0 };
    const encoder = new CheckpointEncoder();
    const kinds: string[] = [];
    for (let step = 1; step <= 40; step++) {
      // A new 200-character value each step: the patches pass the 2 KB base within a dozen steps.
      state.note = String(step).repeat(200 / String(step).length);
      const encoded = encoder.encode({ head: head(step), state, memory: new Map() }, copy);
      encoded.commit();
      kinds.push(encoded.write.kind);
    }
    const bases = kinds.flatMap((kind, index) => (kind === 'base' ? [index] : []));
    expect(bases.length).toBeGreaterThan(2);
    expect(bases[0]).toBe(0);

    const counted = new CheckpointEncoder(3);
    const big = { big: 'z'.repeat(50_000), i: 0 };
    const written = Array.from({ length: 9 }, (_, step) => {
      big.i = step;
      const encoded = counted.encode({ head: head(step), state: big, memory: new Map() }, copy);
      encoded.commit();
      return encoded.write.kind;
    });
    expect(written).toEqual(['base', 'patch', 'patch', 'patch', 'base', 'patch', 'patch', 'patch', 'base']);
    expect(MAX_PATCHES).toBeGreaterThan(100);
  });

  it('a write the host did not store (no commit) is made again in full: the next patch still holds the change', () => {
    const state: Record<string, unknown> = { big: 'b'.repeat(10_000), i: 0 };
    const encoder = new CheckpointEncoder();
    const kept = store();
    const first = encoder.encode({ head: head(1), state, memory: new Map() }, copy);
    kept.save(first.write);
    first.commit();
    state.i = 1;
    state.extra = 'e';
    encoder.encode({ head: head(2), state, memory: new Map() }, copy); // the host failed: not committed
    state.i = 2;
    const third = encoder.encode({ head: head(3), state, memory: new Map() }, copy);
    expect(third.write).toMatchObject({ kind: 'patch', index: 1, state: { set: { i: 2, extra: 'e' }, unset: [] } });
    kept.save(third.write);
    third.commit();
    expect(kept.read().state).toEqual({ big: state.big, i: 2, extra: 'e' });
  });

  it('copies what it writes through `copy` (the run sanitiser): a secret in a changed value never reaches the store', () => {
    const redact = <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll('sk-secret', '[REDACTED]')) as T;
    const state: Record<string, unknown> = { big: 'b'.repeat(10_000) };
    const encoder = new CheckpointEncoder();
    encoder.encode({ head: head(1), state, memory: new Map() }, redact).commit();
    state.reply = 'the key is sk-secret';
    const patch = encoder.encode({ head: head(2), state, memory: new Map() }, redact);
    expect(JSON.stringify(patch.write)).not.toContain('sk-secret');
    expect(patch.write).toMatchObject({ state: { set: { reply: 'the key is [REDACTED]' } } });
  });

  it('ignores patches of an older base (a host that died between a new base and dropping them)', () => {
    const writes = countingSteps(3);
    const fresh = new CheckpointEncoder().encode({ head: head(9), state: { big: 'b'.repeat(10_000), i: 9 }, memory: new Map() }, copy).write;
    expect(decodeCheckpoint(fresh, writes.slice(1), 'test').state.i).toBe(9);
  });

  it('reads a whole node checkpoint written before bases existed', () => {
    const legacy = { ...head(4), state: { i: 4 }, memory: {} };
    expect(decodeCheckpoint(legacy, [], 'resume-point.json')).toEqual(legacy);
  });

  it('a missing patch, a malformed record or a base that is not one is STORAGE_ERROR naming the record, never an older state', () => {
    const [base, ...patches] = countingSteps(4);
    expect(decodeCheckpoint(base, patches, 'x').state.i).toBe(4);
    expectCorrupt(() => decodeCheckpoint(base, [patches[0], patches[2]], 'the run'), /the run is corrupt: patch 2 of base .* is missing/);
    expectCorrupt(() => decodeCheckpoint(base, [patches[1]], 'the run'), /patch 1 .* is missing/);
    expectCorrupt(() => decodeCheckpoint(base, [{ ...patches[0], state: { set: 1 } }], 'the run'), /state or memory change is malformed/);
    expectCorrupt(() => decodeCheckpoint(base, [{ ...patches[0], index: 0 }], 'the run'), /index/);
    expectCorrupt(() => decodeCheckpoint(base, ['text'], 'the run'), /the run, patch record 1 is corrupt: it is not a checkpoint patch/);
    expectCorrupt(() => decodeCheckpoint([1, 2], [], 'the run'), /not a node checkpoint/);
    expectCorrupt(() => decodeCheckpoint({ kind: 'base', base_id: 'b', checkpoint: { run_id: 'r' } }, [], 'the run'), /lacks run_id, node, state/);
  });

  it('keeps prototype keys out of the replayed state', () => {
    const base = { kind: 'base', base_id: 'b', checkpoint: { ...head(1), state: {}, memory: {} } };
    const patch = JSON.parse(`{"kind":"patch","base_id":"b","index":1,"head":${JSON.stringify(head(2))},"state":{"set":{"__proto__":{"polluted":true},"ok":1},"unset":[]},"memory":{"set":{},"unset":[]}}`);
    const state = decodeCheckpoint(base, [patch], 'x').state;
    expect(state).toEqual({ ok: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
