#!/usr/bin/env node
/**
 * Start-up and per-block cost of Python blocks on the Node CLI (issue 26), two ways:
 *
 * - the interpreter process alone (dist/python-process.js, as python-sandbox.ts starts it): the
 *   wall time from spawning it to the first block's answer, the CPU the process had used by then
 *   (its threads included, so a loaded machine does not inflate it), whether the interpreter came
 *   from the start-up snapshot, and the warm blocks' time inside the process;
 * - end to end through `tea-edge run --stream` on a generated agent: the first node's duration
 *   (CLI start, process and interpreter start, block) and the warm nodes'.
 *
 *   node build/build.mjs && node bench/python-blocks.mjs [--blocks N] [--cold] [--json]
 *
 * `--cold` starts without the snapshot (every interpreter boots Python); otherwise the first
 * start makes the snapshot (.cache/python/) and later starts restore it. Needs the optional
 * `pyodide` package (or TEA_EDGE_PYODIDE_DIR). Wall-clock figures on a shared machine: compare
 * runs on the same machine only; the CPU figure is the steadier one.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const blocksAt = argv.indexOf('--blocks');
const blocks = blocksAt === -1 ? 30 : Number(argv[blocksAt + 1]);
const cold = argv.includes('--cold');
const pyodideDir =
  process.env.TEA_EDGE_PYODIDE_DIR || path.dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
const BLOCK = 'xs = state.get("xs", [])\nreturn {"xs": (xs + [len(xs) * 2])[-20:], "total": sum(xs)}';

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The interpreter process alone: JSON lines in and out, as python-sandbox.ts speaks to it. */
async function processFigures() {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--disallow-code-generation-from-strings', '--max-old-space-size=256', path.join(ROOT, 'dist/python-process.js')],
    {
      env: { TEA_EDGE_PYODIDE_DIR: pyodideDir, ...(cold ? { TEA_EDGE_PYTHON_SNAPSHOT: 'off' } : {}) },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const answers = [];
  const lines = createInterface({ input: child.stdout });
  const done = new Promise((resolve) => {
    lines.on('line', (line) => {
      const answer = JSON.parse(line);
      answer.wall_ms = performance.now() - started;
      answers.push(answer);
      if (answer.fatal !== undefined) throw new Error(`the Python process failed: ${answer.fatal}`);
      if (answers.length === blocks) resolve();
    });
  });
  for (let id = 1; id <= blocks; id++)
    child.stdin.write(
      JSON.stringify({
        id,
        code: BLOCK,
        payload: JSON.stringify({ state: { xs: [id] }, variables: {} }),
        timeout_ms: 60_000,
      }) + '\n',
    );
  await done;
  child.stdin.end();
  const [first, ...warm] = answers;
  return {
    from_snapshot: first.from_snapshot,
    ...(first.snapshot_note !== undefined ? { snapshot_note: first.snapshot_note } : {}),
    first_block_wall_ms: Math.round(first.wall_ms),
    first_block_cpu_ms: first.cpu_ms,
    interpreter_start_ms: first.startup_ms,
    warm_median_ms: median(warm.map((answer) => answer.elapsed_ms)),
    warm_max_ms: Math.max(...warm.map((answer) => answer.elapsed_ms)),
  };
}

/** End to end: `tea-edge run --stream` on an agent of `blocks` Python nodes. */
function cliFigures() {
  const nodes = Array.from(
    { length: blocks },
    (_, index) =>
      `  - name: block_${index}\n    language: python\n    run: |\n${BLOCK.split('\n')
        .map((line) => `      ${line}\n`)
        .join('')}`,
  ).join('');
  const folder = mkdtempSync(path.join(os.tmpdir(), 'tea-python-bench-'));
  try {
    const file = path.join(folder, 'python-bench.yaml');
    writeFileSync(file, `name: python-bench\nnodes:\n${nodes}`);
    const started = performance.now();
    const run = spawnSync(process.execPath, [path.join(ROOT, 'bin/tea-edge.js'), 'run', file, '--stream'], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
      env: { ...process.env, TEA_EDGE_PYODIDE_DIR: pyodideDir },
    });
    const wallMs = performance.now() - started;
    if (run.status !== 0)
      throw new Error(`tea-edge run failed (${run.status}): ${run.stderr || run.stdout.slice(-500)}`);
    const durations = run.stdout
      .split('\n')
      .filter((line) => line.includes('"node_end"'))
      .map((line) => JSON.parse(line).data.duration_ms);
    return {
      first_block_ms: durations[0],
      warm_median_ms: median(durations.slice(1)),
      warm_max_ms: Math.max(...durations.slice(1)),
      run_wall_ms: Math.round(wallMs),
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const result = { blocks, process: await processFigures(), ...(cold ? {} : { cli: cliFigures() }) };
if (argv.includes('--json')) console.log(JSON.stringify(result));
else {
  const p = result.process;
  console.log(
    `interpreter process (${p.from_snapshot ? 'from the snapshot' : 'cold boot'}${p.snapshot_note ? `; ${p.snapshot_note}` : ''}): first block ${p.first_block_wall_ms} ms wall, ${p.first_block_cpu_ms} ms CPU (interpreter start ${p.interpreter_start_ms} ms); warm blocks median ${p.warm_median_ms} ms, max ${p.warm_max_ms} ms (${blocks - 1})`,
  );
  if (result.cli)
    console.log(
      `tea-edge run: first block ${result.cli.first_block_ms} ms; warm blocks median ${result.cli.warm_median_ms} ms, max ${result.cli.warm_max_ms} ms; whole run ${result.cli.run_wall_ms} ms`,
    );
}
