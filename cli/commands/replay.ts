/**
 * `tea-edge run --replay <trace-dir>/<run-id>`: re-runs an agent against the model responses
 * recorded in a trace, with the recorded input unless the user gives one. The first request that
 * differs from the recording fails the run (exit 1), naming the call and the field.
 */
import path from 'node:path';
import { createFsStores } from '../../adapters/fs/index.js';
import {
  formatAgentError,
  toAgentError,
  createReplayProvider,
  isPlainObject,
  type RunOptions,
} from '../../src/host.js';
import { UsageError } from '../args.js';

export interface Replay {
  options: Partial<RunOptions>;
  /** The input the recorded run started with. */
  input: Record<string, unknown>;
}

export async function loadReplay(target: string): Promise<Replay> {
  const runId = path.basename(target);
  const traceDir = path.dirname(target);
  const { traceStore } = createFsStores(traceDir);
  const events = await traceStore.readEvents(runId);
  if (events.length === 0) throw new UsageError(`--replay: no recorded run '${runId}' in ${traceDir}`);
  let provider;
  try {
    provider = createReplayProvider(events);
  } catch (error) {
    throw new UsageError(`--replay: ${formatAgentError(toAgentError(error))}`);
  }
  const start = events.find((event) => event.type === 'run_start');
  const input =
    start !== undefined && isPlainObject(start.data.input) ? (start.data.input as Record<string, unknown>) : {};
  return { options: { llm: { providerFactory: () => provider } }, input };
}
