#!/usr/bin/env node
/**
 * Start-up and per-block cost of Python blocks on the Node CLI (issue 26), measured through
 * `tea-edge run --stream` on a generated agent: the first block's duration includes starting the
 * interpreter process and thread (Pyodide load); the others run warm.
 *
 *   node build/build.mjs && node bench/python-blocks.mjs [--blocks N] [--json]
 *
 * Needs the optional `pyodide` package (or TEA_EDGE_PYODIDE_DIR). Wall-clock figures on a shared
 * machine: compare runs on the same machine only.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const blocksAt = argv.indexOf('--blocks');
const blocks = blocksAt === -1 ? 30 : Number(argv[blocksAt + 1]);

const nodes = Array.from({ length: blocks }, (_, index) => `  - name: block_${index}\n    language: python\n    run: |\n      xs = state.get("xs", [])\n      return {"xs": (xs + [len(xs) * 2])[-20:], "total": sum(xs)}\n`).join('');
const folder = mkdtempSync(path.join(os.tmpdir(), 'tea-python-bench-'));
try {
  const file = path.join(folder, 'python-bench.yaml');
  writeFileSync(file, `name: python-bench\nnodes:\n${nodes}`);
  const started = performance.now();
  const run = spawnSync(process.execPath, [path.join(ROOT, 'bin/tea-edge.js'), 'run', file, '--stream'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const wallMs = performance.now() - started;
  if (run.status !== 0) throw new Error(`tea-edge run failed (${run.status}): ${run.stderr || run.stdout.slice(-500)}`);
  const durations = run.stdout
    .split('\n')
    .filter((line) => line.includes('"node_end"'))
    .map((line) => JSON.parse(line).data.duration_ms);
  const warm = durations.slice(1).sort((a, b) => a - b);
  const result = {
    blocks,
    first_block_ms: durations[0],
    warm_median_ms: warm[Math.floor(warm.length / 2)],
    warm_max_ms: warm.at(-1),
    run_wall_ms: Math.round(wallMs),
  };
  if (argv.includes('--json')) console.log(JSON.stringify(result));
  else console.log(`first block (interpreter start + block): ${result.first_block_ms} ms; warm blocks: median ${result.warm_median_ms} ms, max ${result.warm_max_ms} ms (${blocks - 1}); whole run ${result.run_wall_ms} ms`);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
