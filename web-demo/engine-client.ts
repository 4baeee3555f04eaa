/**
 * The page's side of the engine workers: request/response over postMessage, events forwarded to
 * a listener, and the hard stop. Two workers: the light engine (no Lua VM) starts with the page;
 * the full engine with Lua starts the first time an agent needs it. `cancel` first asks the
 * engine to cancel (which aborts the model call); if the run has not finished after a grace
 * period (a script spinning in a loop), its worker is terminated and a fresh one started, and
 * the run is reported as cancelled.
 */
import type { AgentEvent } from '../src/core/events.js';
import type { ModelSettings } from './model-settings.js';
import type { AgentProblem, ProbeOutcome, RequestMessage, ResponseMessage, RunOutcome, RunPauses } from './protocol.js';
import type { AgentGraph } from './agent-graph.js';
import { mayUseLua, needsScriptEngine } from './lua-marker.js';

export interface Validation {
  problems: AgentProblem[];
  graph?: AgentGraph;
  agent?: string;
}

export interface EngineClientOptions {
  /** The light engine worker (engine-worker.js). */
  workerUrl: string;
  /** The engine worker with Lua (engine-worker-lua.js). */
  luaWorkerUrl: string;
  onEvent(runId: string, event: AgentEvent): void;
  /** Called when a worker was terminated and replaced. */
  onRestart?(): void;
  /** How long a cancelled run may take to stop before its worker is terminated (ms). */
  graceMs?: number;
  /** Agent files runs may call as sub-runs (the bundled examples), sent with each run. */
  agentFiles?: Record<string, string>;
}

type Engine = 'light' | 'lua';
type Pending = { resolve(value: unknown): void; engine: Engine; kind: string; run_id?: string };
type Slot = { worker: Worker; ready: Promise<void> };

export class EngineClient {
  private readonly slots = new Map<Engine, Slot>();
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly options: EngineClientOptions;

  constructor(options: EngineClientOptions) {
    this.options = options;
    this.slot('light');
  }

  /** The engine a run needs: Lua also when an agent file it may run as a sub-run uses Lua (found only once the run is under way). */
  private runEngineFor(agentYaml: string): Engine {
    const subAgents = /\bfile\s*:/.test(agentYaml) ? Object.values(this.options.agentFiles ?? {}) : [];
    return subAgents.some(mayUseLua) ? 'lua' : engineFor(agentYaml);
  }

  private files(): { agentFiles?: Record<string, string> } {
    return this.options.agentFiles !== undefined ? { agentFiles: this.options.agentFiles } : {};
  }

  /** Resolves once the light engine said it is ready. */
  get ready(): Promise<void> {
    return this.slot('light').ready;
  }

  async validate(agentYaml: string): Promise<Validation> {
    const engine = engineFor(agentYaml);
    const result = (await this.request(engine, { type: 'validate', agentYaml }, 'validate')) as Validation;
    if (engine === 'light' && result.problems.some(needsScriptEngine)) {
      return (await this.request('lua', { type: 'validate', agentYaml }, 'validate')) as Validation;
    }
    return result;
  }

  async run(
    agentYaml: string,
    input: Record<string, unknown>,
    model: ModelSettings,
    runId: string,
    pauses?: RunPauses,
  ): Promise<RunOutcome> {
    const engine = this.runEngineFor(agentYaml);
    const message = {
      type: 'run',
      agentYaml,
      input,
      model,
      run_id: runId,
      ...this.files(),
      ...(pauses ? { pauses } : {}),
    };
    const outcome = (await this.request(engine, message, 'run', runId)) as RunOutcome;
    // The light engine refuses Lua at load, before the run starts: start it again with Lua.
    if (engine === 'light' && needsScriptEngine(outcome.error))
      return (await this.request('lua', message, 'run', runId)) as RunOutcome;
    return outcome;
  }

  /** Continues a paused run: with the approval of a tool call, or with the state changed (`state_update`). */
  resume(
    agentYaml: string,
    runId: string,
    update: { approval?: { approved: boolean }; state_update?: Record<string, unknown> },
    model: ModelSettings,
    pauses?: RunPauses,
  ): Promise<RunOutcome> {
    const message = {
      type: 'resume' as const,
      agentYaml,
      run_id: runId,
      ...update,
      model,
      ...this.files(),
      ...(pauses ? { pauses } : {}),
    };
    return this.request(this.runEngineFor(agentYaml), message, 'run', runId) as Promise<RunOutcome>;
  }

  /** Time travel: starts run `runId` after `node` of `parentRunId`, from `state`. */
  fork(
    agentYaml: string,
    runId: string,
    parentRunId: string,
    node: string,
    state: Record<string, unknown>,
    model: ModelSettings,
  ): Promise<RunOutcome> {
    return this.request(
      engineFor(agentYaml),
      { type: 'fork', agentYaml, run_id: runId, parent_run_id: parentRunId, node, state, model },
      'run',
      runId,
    ) as Promise<RunOutcome>;
  }

  probe(model: ModelSettings): Promise<ProbeOutcome> {
    return this.request('light', { type: 'probe', model }, 'probe') as Promise<ProbeOutcome>;
  }

  /** Cancels a run; terminates its worker if it does not stop within the grace period. */
  cancel(runId: string): void {
    const entry = [...this.pending.values()].find((candidate) => candidate.run_id === runId);
    if (!entry) return;
    this.slot(entry.engine).worker.postMessage({ type: 'cancel', run_id: runId } satisfies RequestMessage);
    setTimeout(() => {
      const stillRunning = [...this.pending.values()].some((candidate) => candidate.run_id === runId);
      if (stillRunning) this.restart(entry.engine, runId);
    }, this.options.graceMs ?? 1500);
  }

  /** Terminates one engine worker, settles what it had in flight, and starts a new one. */
  restart(engine: Engine, stoppedRunId?: string): void {
    this.slots.get(engine)?.worker.terminate();
    this.slots.delete(engine);
    for (const [id, entry] of this.pending) {
      if (entry.engine !== engine) continue;
      this.pending.delete(id);
      entry.resolve(settleAfterTermination(entry, stoppedRunId));
    }
    this.slot(engine);
    this.options.onRestart?.();
  }

  private request(engine: Engine, message: Record<string, unknown>, kind: string, runId?: string): Promise<unknown> {
    const requestId = this.nextId++;
    const { worker } = this.slot(engine);
    return new Promise((resolve) => {
      this.pending.set(requestId, { resolve, engine, kind, ...(runId !== undefined ? { run_id: runId } : {}) });
      worker.postMessage({ ...message, request_id: requestId } as RequestMessage);
    });
  }

  private slot(engine: Engine): Slot {
    const existing = this.slots.get(engine);
    if (existing) return existing;
    const url = engine === 'lua' ? this.options.luaWorkerUrl : this.options.workerUrl;
    const worker = new Worker(url, { type: 'module', name: `tea-edge engine (${engine})` });
    let markReady: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    worker.addEventListener('message', (message: MessageEvent<ResponseMessage>) => {
      const response = message.data;
      if (response.type === 'ready') return markReady();
      if (response.type === 'event') return this.options.onEvent(response.run_id, response.event);
      const entry = this.pending.get(response.request_id);
      if (!entry) return;
      this.pending.delete(response.request_id);
      if (response.type === 'validated')
        entry.resolve({ problems: response.problems, graph: response.graph, agent: response.agent });
      else if (response.type === 'finished') entry.resolve(response.outcome);
      else if (response.type === 'probed') entry.resolve(response.outcome);
    });
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      if (this.slots.get(engine)?.worker === worker) this.restart(engine);
    });
    const slot = { worker, ready };
    this.slots.set(engine, slot);
    return slot;
  }
}

function engineFor(agentYaml: string): Engine {
  return mayUseLua(agentYaml) ? 'lua' : 'light';
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
  if (entry.kind === 'probe')
    return {
      ok: false,
      models: [],
      capabilities: {},
      advice: [],
      error: 'the engine worker was restarted',
    } satisfies ProbeOutcome;
  return { problems: [] } satisfies Validation;
}
