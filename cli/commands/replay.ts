/** `tea-edge run --replay <trace-dir>/<run-id>`: re-runs an agent against the model responses recorded in a trace. */
import path from 'node:path';
import { createFsStores } from '../../adapters/fs/index.js';
import { createReplayProvider } from '../../src/llm/replay.js';
import type { RunOptions } from '../../src/graph/run-types.js';
import { UsageError } from '../args.js';

export async function replayOptions(target: string): Promise<Partial<RunOptions>> {
  const runId = path.basename(target);
  const traceDir = path.dirname(target);
  const { traceStore } = createFsStores(traceDir);
  const events = await traceStore.readEvents(runId);
  if (events.length === 0) throw new UsageError(`--replay: no recorded run '${runId}' in ${traceDir}`);
  const provider = createReplayProvider(events);
  return { llm: { providerFactory: () => provider } };
}
