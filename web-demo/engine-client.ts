/**
 * The page's side of the engine worker: request/response over postMessage, events forwarded to
 * a listener, and the hard stop. `cancel` first asks the engine to cancel (which aborts the
 * model call); if the run has not finished after a grace period (a script spinning in a loop),
 * the worker is terminated and a fresh one started, and the run is reported as cancelled.
 */
import type { AgentEvent } from '../src/events/event.js';
import type { ModelSettings } from './model-settings.js';
import type { AgentProblem, ProbeOutcome, RequestMessage, ResponseMessage, RunOutcome } from './protocol.js';
import type { AgentGraph } from './agent-graph.js';

export interface Validation {
  problems: AgentProblem[];
  graph?: AgentGraph;
  agent?: string;
}

export interface EngineClientOptions {
  workerUrl: string;
  onEvent(runId: string, event: AgentEvent): void;
  /** Called when the worker was terminated and replaced. */
  onRestart?(): void;
  /** How long a cancelled run may take to stop before the worker is terminated (ms). */
  graceMs?: number;
}

type Pending = { resolve(value: unknown): void; run_id?: string; kind: string };

export class EngineClient {
  private worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly options: EngineClientOptions;
  /** Resolves once the current worker said it is ready. */
  ready: Promise<void>;

  constructor(options: EngineClientOptions) {
    this.options = options;
    const started = this.startWorker();
    this.worker = started.worker;
    this.ready = started.ready;
  }

  validate(agentYaml: string): Promise<Validation> {
    return this.request({ type: 'validate', agentYaml }, 'validate') as Promise<Validation>;
  }

  run(agentYaml: string, input: Record<string, unknown>, model: ModelSettings, runId: string): Promise<RunOutcome> {
    return this.request({ type: 'run', agentYaml, input, model, run_id: runId }, 'run', runId) as Promise<RunOutcome>;
  }

  resume(agentYaml: string, runId: string, approval: { approved: boolean } | undefined, model: ModelSettings): Promise<RunOutcome> {
    const message = approval ? { type: 'resume' as const, agentYaml, run_id: runId, approval, model } : { type: 'resume' as const, agentYaml, run_id: runId, model };
    return this.request(message, 'run', runId) as Promise<RunOutcome>;
  }

  probe(model: ModelSettings): Promise<ProbeOutcome> {
    return this.request({ type: 'probe', model }, 'probe') as Promise<ProbeOutcome>;
  }

  /** Cancels a run; terminates the worker if it does not stop within the grace period. */
  cancel(runId: string): void {
    this.worker.postMessage({ type: 'cancel', run_id: runId } satisfies RequestMessage);
    const graceMs = this.options.graceMs ?? 1500;
    setTimeout(() => {
      const stillRunning = [...this.pending.values()].some((entry) => entry.run_id === runId);
      if (stillRunning) this.restart(runId);
    }, graceMs);
  }

  /** Terminates the worker, settles everything in flight, and starts a new worker. */
  restart(stoppedRunId?: string): void {
    this.worker.terminate();
    for (const [id, entry] of this.pending) {
      this.pending.delete(id);
      entry.resolve(settleAfterTermination(entry, stoppedRunId));
    }
    const started = this.startWorker();
    this.worker = started.worker;
    this.ready = started.ready;
    this.options.onRestart?.();
  }

  private request(message: Record<string, unknown>, kind: string, runId?: string): Promise<unknown> {
    const requestId = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(requestId, { resolve, kind, ...(runId !== undefined ? { run_id: runId } : {}) });
      this.worker.postMessage({ ...message, request_id: requestId } as RequestMessage);
    });
  }

  private startWorker(): { worker: Worker; ready: Promise<void> } {
    const worker = new Worker(this.options.workerUrl, { type: 'module', name: 'tea-edge engine' });
    let markReady: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    worker.addEventListener('message', (message: MessageEvent<ResponseMessage>) => {
      const response = message.data;
      if (response.type === 'ready') return markReady();
      if (response.type === 'event') return this.options.onEvent(response.run_id, response.event);
      const entry = this.pending.get(response.request_id);
      if (!entry) return;
      this.pending.delete(response.request_id);
      if (response.type === 'validated') entry.resolve({ problems: response.problems, graph: response.graph, agent: response.agent });
      else if (response.type === 'finished') entry.resolve(response.outcome);
      else if (response.type === 'probed') entry.resolve(response.outcome);
    });
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      this.restart();
    });
    return { worker, ready };
  }
}

function settleAfterTermination(entry: Pending, stoppedRunId: string | undefined): unknown {
  if (entry.kind === 'run') {
    const cancelled = entry.run_id === stoppedRunId;
    return {
      run_id: entry.run_id ?? '',
      status: cancelled ? 'cancelled' : 'failed',
      stop_reason: cancelled ? 'cancelled' : 'error',
      error: cancelled
        ? { code: 'CANCELLED', message: 'the run did not stop when asked, so its engine worker was terminated' }
        : { code: 'INTERNAL', message: 'the engine worker stopped' },
    } satisfies RunOutcome;
  }
  if (entry.kind === 'probe') return { ok: false, models: [], capabilities: {}, advice: [], error: 'the engine worker was restarted' } satisfies ProbeOutcome;
  return { problems: [] } satisfies Validation;
}
