/**
 * The run-wide budget on bytes written (settings.limits.max_write_bytes, issue 24 cause 4): a loop
 * of file.write calls ends with BUDGET_EXCEEDED (stop reason max_write_bytes) before the write that
 * would pass it reaches the root; the default holds when the agent sets nothing; the host's
 * tighter limit wins; a value past the ceiling is a load error naming key and ceiling.
 */
import { describe, expect, it } from 'vitest';
import type { FileStore } from '../../src/core/file-store.js';
import { BUDGET_CEILINGS, BUDGET_DEFAULTS } from '../../src/graph/run-budget.js';
import { loadError, runYaml } from '../engine/helpers.js';

/** A file root in memory that records every write it receives. */
function memoryFiles(): FileStore & { written: number; files: Map<string, Uint8Array> } {
  const files = new Map<string, Uint8Array>();
  const store = {
    description: 'memory',
    files,
    written: 0,
    async read(path: string) {
      return files.get(path);
    },
    async write(path: string, bytes: Uint8Array) {
      store.written += bytes.byteLength;
      files.set(path, bytes);
    },
  };
  return store;
}

/** Writes `size` bytes to a new file on every visit, forever (the step budget is the only other stop). */
function writerLoop(limits: string, size: number): string {
  return `
settings:
  limits: { max_steps: 100000${limits} }
nodes:
  - name: write
    uses: file.write
    with: { path: "out/{{ state.n | default(0) }}.txt", content: "{{ 'x' * ${size} }}" }
  - name: count
    run: |
      return { n = (state.n or 0) + 1 }
    goto: write
`;
}

describe('settings.limits.max_write_bytes', () => {
  it('ends a write loop at the budget; the refused write never reaches the root', async () => {
    const files = memoryFiles();
    const { result } = await runYaml(writerLoop(', max_write_bytes: 10000', 3000), {}, { files });
    expect(result.status).toBe('failed');
    expect(result.stop_reason).toBe('max_write_bytes');
    expect(result.error?.code).toBe('BUDGET_EXCEEDED');
    expect(result.error?.node).toBe('write');
    expect(files.written).toBe(9000);
    expect(files.files.size).toBe(3);
  });

  it('holds the default when the agent sets nothing', async () => {
    const files = memoryFiles();
    const size = 1024 * 1024;
    const { result } = await runYaml(writerLoop('', size), {}, { files });
    expect(result.stop_reason).toBe('max_write_bytes');
    expect(files.written).toBeLessThanOrEqual(BUDGET_DEFAULTS.max_write_bytes);
    expect(files.written).toBe(Math.floor(BUDGET_DEFAULTS.max_write_bytes / size) * size);
  });

  it("takes the host's tighter limit over the agent's", async () => {
    const files = memoryFiles();
    const { result } = await runYaml(
      writerLoop(', max_write_bytes: 1000000', 400),
      {},
      { files, limits: { max_write_bytes: 1000 } },
    );
    expect(result.stop_reason).toBe('max_write_bytes');
    expect(files.written).toBe(800);
  });

  it('refuses a budget past its ceiling at load, naming the key and the ceiling', () => {
    const error = loadError(writerLoop(`, max_write_bytes: ${BUDGET_CEILINGS.max_write_bytes + 1}`, 1));
    expect(error.code).toBe('INVALID_AGENT');
    expect(error.message).toContain('settings.limits.max_write_bytes');
    expect(error.message).toContain(String(BUDGET_CEILINGS.max_write_bytes));
  });
});
