/**
 * The large-state case through the worker in Miniflare (`tea-edge bench scale`): the test worker's
 * `looper` agent (49 Lua visits of one node reading `state.i`) run through the Durable Object path
 * with an input that also holds an untouched 1 KB or ~1 MB object (the request body limit is
 * 1 MiB). Reported: wall time of the run, request to answer (Miniflare gives no per-isolate CPU;
 * it includes what a run costs once: reading the 1 MB body, answering with the 1 MB final state),
 * and the text the run's object wrote into SQLite (events, records, node checkpoints) against the
 * big object's size: with whole checkpoints before every node it would be 49 times that at least.
 * Events over the size cap (run_start's input, done's state) are stored summarised.
 */
import { performance } from 'node:perf_hooks';
import { bundleTestWorker, call } from '../tests/worker/miniflare-harness.js';
import { startDurableWorker } from '../tests/worker/durable-harness.js';
import type { DurableObjectNamespaceLike } from '../worker/cloudflare/durable-routes.js';
import type { StorageWrites } from '../worker/durable-run-store.js';
import type { BenchResult } from './bench-result.js';
import { stateFiller } from './measure.js';

const STEPS = 49;
/** Filler sizes asked for (stateFiller's estimate runs about a tenth under the JSON it makes). */
const SIZES = [1_000, 900_000];

export async function workerLargeState(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const worker = await startDurableWorker(await bundleTestWorker());
  try {
    const namespace = (await worker.getDurableObjectNamespace('RUNS')) as unknown as DurableObjectNamespaceLike;
    let smallMs = 0;
    for (const size of SIZES) {
      const big = stateFiller(size);
      const bigBytes = JSON.stringify(big).length;
      const label =
        bigBytes < 100_000 ? `${(bigBytes / 1000).toFixed(1)} KB` : `${(bigBytes / 1_000_000).toFixed(2)} MB`;
      // A warm-up run, then the measured one.
      let wallMs = 0;
      let runId = '';
      for (let attempt = 0; attempt < 2; attempt++) {
        const started = performance.now();
        const answer = await call(worker, 'POST', '/agents/looper/runs', { input: { big } });
        wallMs = performance.now() - started;
        if (answer.json?.status !== 'completed')
          throw new Error(`scale: the worker's looper run answered ${answer.status}: ${answer.text.slice(0, 300)}`);
        runId = answer.json.run_id as string;
      }
      const stats = (await (
        await namespace.get(namespace.idFromName(runId) as never).fetch('https://run-coordinator/stats')
      ).json()) as StorageWrites;
      if (size === SIZES[0]) smallMs = wallMs;
      results.push({
        name: `scale.worker: Miniflare, Durable Object path, ${STEPS}-step Lua loop, ${label} state: wall time of the run`,
        value: Math.round(wallMs),
        unit: 'ms',
        baseline_value: Math.round(smallMs),
        ratio: Math.round((wallMs / smallMs) * 100) / 100,
      });
      const written = stats.bytes ?? 0;
      results.push({
        name: `scale.worker: Miniflare, Durable Object SQLite text written by the ${STEPS}-step run, ${label} state (baseline: the state once; whole checkpoints every step would be ${STEPS}×)`,
        value: written,
        unit: 'B',
        baseline_value: bigBytes,
        ratio: Math.round((written / bigBytes) * 100) / 100,
      });
    }
  } finally {
    await worker.dispose();
  }
  return results;
}
