/**
 * The engine in a Web Worker, shared by the two worker entries: engine-worker.ts (light, no
 * script sandbox) and engine-worker-lua.ts (with the Lua sandbox). It validates agents, runs and
 * resumes them, and probes model servers, posting every event to the page as it happens. Runs
 * are traced in IndexedDB through the IndexedDB adapter, so the page can list them after a
 * reload. The page stops a runaway run by terminating this worker and starting a new one, so
 * nothing here has to be interruptible.
 */
import { parse as parseYaml } from 'yaml';
// The engine's own modules, not src/index.ts: the main entry's loadAgent brings the Lua VM.
import type { ScriptSandboxes } from '../src/core/script-sandbox.js';
import { loadAgent } from '../src/graph/load-agent.js';
import { createActionRegistry } from '../src/builtins.js';
import { resumeAgent, runAgent } from '../src/graph/run-agent.js';
import { forkRun } from '../worker/fork-run.js';
import { createProvider } from '../src/llm/create-provider.js';
import { createIndexedDbStores } from '../adapters/indexeddb/index.js';
import { createOpfsFileStore, hasOpfs } from '../adapters/opfs/opfs-file-store.js';
import { textAgentFileSource } from '../src/graph/agent-files.js';
import type { LlmConnection } from '../src/core/model-provider.js';
import { agentGraph } from './agent-graph.js';
import { createDemoModel } from './demo-model.js';
import { toOverrides, type ModelSettings } from './model-settings.js';
import { AGENT_FILE, problemsFromLoadError } from './load-problems.js';
import { yamlPathLocator } from './yaml-locator.js';
import {
  DATABASE_NAME,
  type AgentProblem,
  type ProbeOutcome,
  type RequestMessage,
  type ResponseMessage,
  type RunOutcome,
  type RunPauses,
} from './protocol.js';
import type { CompiledAgent } from '../src/graph/compiled-agent.js';
import { AgentError } from '../src/core/agent-error.js';
import { suggestionFor } from '../src/util/suggest.js';

/** The part of the worker global this file uses. */
export interface WorkerScope {
  postMessage(message: ResponseMessage): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<RequestMessage>) => void): void;
}

type Stores = ReturnType<typeof createIndexedDbStores>;
type AgentRunHandle = ReturnType<typeof runAgent>;

/**
 * Wires the message handler; all state lives in this closure. An agent that needs a sandbox not
 * in `scripts` fails with SCRIPT_ENGINE_NOT_LOADED, which tells the page to use the Lua engine.
 */
export function startEngineWorker(
  scope: WorkerScope,
  scripts: ScriptSandboxes,
  moreScripts?: (scripts: ScriptSandboxes, agentYaml: string) => Promise<ScriptSandboxes> | undefined,
): void {
  // `moreScripts` loads a sandbox an agent needs on first use (Prolog: its own chunk); until it
  // has loaded, the requests that load agents wait for it.
  let current = scripts;
  const load = (agentYaml: string) =>
    loadAgent(agentYaml, { file: AGENT_FILE, scripts: current, registry: createActionRegistry() });
  const runs = new Map<string, AgentRunHandle>();
  let stores: Stores | undefined;
  const openStores = (): Stores | undefined => {
    try {
      stores ??= createIndexedDbStores({ dbName: DATABASE_NAME, retention: { maxRuns: 200 } });
    } catch {
      stores = undefined;
    }
    return stores;
  };

  // file.read / file.write work in the origin's private file system, when the browser has one.
  const files = hasOpfs() ? { files: createOpfsFileStore() } : {};
  const runOptions = (runId: string, model: ModelSettings, agentFiles: Record<string, string> = {}) => {
    const current = openStores();
    const overrides = toOverrides(model);
    return {
      runId,
      // A run in the tab keeps every model request and response: the studio shows each call.
      capturePayloads: true,
      ...files,
      agentFiles: textAgentFileSource("the web demo's examples", async (file) => agentFiles[file]),
      llm: {
        overrides,
        providerFactory: (connection: LlmConnection) =>
          connection.provider === 'scripted' && connection.scripted === undefined
            ? createDemoModel()
            : createProvider(connection),
      },
      ...(current ? { traceStore: current.traceStore, checkpointStore: current.checkpointStore } : {}),
    };
  };

  const drive = async (requestId: number, runId: string, run: AgentRunHandle): Promise<void> => {
    runs.set(runId, run);
    try {
      for await (const event of run) scope.postMessage({ type: 'event', run_id: runId, event });
      const result = await run.result;
      const outcome: RunOutcome = {
        run_id: result.run_id,
        status: result.status,
        stop_reason: result.stop_reason,
        state: result.state,
      };
      if (result.error) outcome.error = errorJson(result.error);
      scope.postMessage({ type: 'finished', request_id: requestId, outcome });
    } catch (error) {
      console.error(error);
      scope.postMessage({
        type: 'finished',
        request_id: requestId,
        outcome: { run_id: runId, status: 'failed', stop_reason: 'error', error: errorJson(error) },
      });
    } finally {
      runs.delete(runId);
    }
  };

  scope.addEventListener('message', (message) => {
    const request = message.data;
    const loading = moreScripts && 'agentYaml' in request ? moreScripts(current, request.agentYaml) : undefined;
    if (!loading) return handle(request);
    // Keeps the loaded sandboxes for the next requests, then handles this one.
    void loading.then(
      (loaded) => handle(request, (current = loaded)),
      () => handle(request),
    );
  });

  const handle = (request: RequestMessage, _loaded?: ScriptSandboxes): void => {
    switch (request.type) {
      case 'validate':
        scope.postMessage({ type: 'validated', request_id: request.request_id, ...validate(request.agentYaml, load) });
        break;
      case 'run': {
        let run: AgentRunHandle;
        try {
          run = runAgent(
            withPauses(load(request.agentYaml), request.pauses),
            request.input,
            runOptions(request.run_id, request.model, request.agentFiles),
          );
        } catch (error) {
          scope.postMessage({
            type: 'finished',
            request_id: request.request_id,
            outcome: { run_id: request.run_id, status: 'failed', stop_reason: 'error', error: errorJson(error) },
          });
          break;
        }
        void drive(request.request_id, request.run_id, run);
        break;
      }
      case 'resume': {
        let run: AgentRunHandle;
        try {
          const agent = withPauses(load(request.agentYaml), request.pauses);
          const update = {
            ...(request.approval ? { approval: request.approval } : {}),
            ...(request.state_update ? { state_update: request.state_update } : {}),
          };
          run = resumeAgent(
            agent,
            request.run_id,
            update,
            runOptions(request.run_id, request.model, request.agentFiles),
          );
        } catch (error) {
          scope.postMessage({
            type: 'finished',
            request_id: request.request_id,
            outcome: { run_id: request.run_id, status: 'failed', stop_reason: 'error', error: errorJson(error) },
          });
          break;
        }
        void drive(request.request_id, request.run_id, run);
        break;
      }
      case 'fork': {
        const current = openStores();
        const started = current
          ? Promise.resolve()
              .then(() => load(request.agentYaml))
              .then((agent) =>
                forkRun(agent, current, request).then(() =>
                  resumeAgent(agent, request.run_id, {}, runOptions(request.run_id, request.model)),
                ),
              )
          : Promise.reject(new Error('running from a node needs IndexedDB, which this browser window does not allow'));
        started.then(
          (run) => void drive(request.request_id, request.run_id, run),
          (error: unknown) =>
            scope.postMessage({
              type: 'finished',
              request_id: request.request_id,
              outcome: { run_id: request.run_id, status: 'failed', stop_reason: 'error', error: errorJson(error) },
            }),
        );
        break;
      }
      case 'cancel':
        runs.get(request.run_id)?.cancel();
        break;
      case 'probe':
        void probe(request.model).then((outcome) =>
          scope.postMessage({ type: 'probed', request_id: request.request_id, outcome }),
        );
        break;
    }
  };
  scope.postMessage({ type: 'ready' });
}

/**
 * The agent with the pauses set on the studio's graph added to its own (`interrupt: before|after`):
 * a copy, the loaded agent is not changed. A name that is not a node of the agent is refused
 * (INVALID_PARAMS, naming the nearest node), never ignored.
 */
export function withPauses(agent: CompiledAgent, pauses: RunPauses | undefined): CompiledAgent {
  if (!pauses || (pauses.before.length === 0 && pauses.after.length === 0)) return agent;
  const names = [...agent.nodes.keys()];
  for (const name of [...pauses.before, ...pauses.after]) {
    if (!agent.nodes.has(name))
      throw new AgentError(
        'INVALID_PARAMS',
        `a pause is set on node '${name}', which agent '${agent.name}' does not have${suggestionFor(name, names)}`,
        { field: 'pauses' },
      );
  }
  const nodes = new Map(
    [...agent.nodes].map(([name, node]) => [
      name,
      {
        ...node,
        interruptBefore: node.interruptBefore || pauses.before.includes(name),
        interruptAfter: node.interruptAfter || pauses.after.includes(name),
      },
    ]),
  );
  return { ...agent, nodes };
}

/** Loads the agent to find its problems; the graph comes from the YAML alone so it draws early. */
function validate(
  agentYaml: string,
  load: (agentYaml: string) => unknown,
): { problems: AgentProblem[]; graph?: ReturnType<typeof agentGraph>; agent?: string } {
  let graph: ReturnType<typeof agentGraph> | undefined;
  let agent: string | undefined;
  try {
    const spec = parseYaml(agentYaml) as unknown;
    graph = agentGraph(spec);
    if (typeof spec === 'object' && spec !== null && typeof (spec as { name?: unknown }).name === 'string')
      agent = (spec as { name: string }).name;
  } catch {
    graph = undefined;
  }
  let problems: AgentProblem[] = [];
  try {
    load(agentYaml);
  } catch (error) {
    problems = problemsFromLoadError(error, yamlPathLocator(agentYaml));
  }
  return { problems, ...(graph ? { graph } : {}), ...(agent ? { agent } : {}) };
}

/**
 * The capability probe, then what it could not say: whether a refused server is down or refusing
 * CORS (a `no-cors` request), and whether a chat completion works (an HTTP error with its body).
 */
async function probe(model: ModelSettings): Promise<ProbeOutcome> {
  const overrides = toOverrides(model);
  if (!overrides.api_base) return { ok: false, models: [], capabilities: {}, advice: [], error: 'no server to probe' };
  const apiBase = overrides.api_base.replace(/\/+$/, '');
  // The probe is loaded when the settings ask for it, not with the engine (first-load budget).
  const [{ probeEndpoint }, { probeChat, reachable }] = await Promise.all([
    import('../src/llm/probe.js'),
    import('./probe-diagnosis.js'),
  ]);
  let outcome: ProbeOutcome;
  try {
    const report = await probeEndpoint({
      api_base: apiBase,
      timeout_ms: 20_000,
      ...(overrides.api_key ? { api_key: overrides.api_key } : {}),
      ...(overrides.model ? { model: overrides.model } : {}),
    });
    outcome = {
      ok: report.cors_error === undefined && report.errors.models === undefined,
      models: report.models,
      capabilities: {
        streams: report.streams,
        json_schema: report.json_schema,
        native_tools: report.native_tools,
        streamed_tools: report.streamed_tools,
        embeddings: report.embeddings,
        tool_calls: report.tool_calls,
        reasoning: report.reasoning,
        server: report.server.kind,
        ...(report.server.context_size !== undefined ? { context_size: report.server.context_size } : {}),
      },
      advice: report.advice,
    };
    if (report.cors_error !== undefined) {
      outcome.cors_error = true;
      outcome.error = report.cors_error;
    } else if (report.errors.models !== undefined) outcome.error = report.errors.models;
    if (report.model !== undefined) overrides.model ??= report.model;
  } catch (error) {
    return { ok: false, models: [], capabilities: {}, advice: [], error: errorJson(error).message };
  }
  if (outcome.cors_error) {
    // The browser refused the request; only a no-cors request can tell down from CORS.
    const reach = await reachable(`${apiBase}/models`);
    if (!reach.up) {
      delete outcome.cors_error;
      outcome.error = reach.reason;
      outcome.advice = [];
      outcome.diagnosis = 'down';
      return outcome;
    }
    outcome.diagnosis = 'cors';
    return outcome;
  }
  outcome.chat = await probeChat({
    apiBase,
    timeoutMs: 20_000,
    ...(overrides.model ? { model: overrides.model } : {}),
    ...(overrides.api_key ? { apiKey: overrides.api_key } : {}),
  });
  outcome.ok = outcome.ok && outcome.chat.ok;
  outcome.diagnosis = outcome.ok ? 'ok' : 'http_error';
  return outcome;
}

/** An error as the page gets it: code, text and the node and field it happened at. */
function errorJson(error: unknown): { code: string; message: string; node?: string; field?: string } {
  if (typeof error === 'object' && error !== null) {
    // An AgentError (thrown) or its JSON (a run's result): both carry node and field as fields.
    const json = error as { code?: unknown; message?: unknown; node?: unknown; field?: unknown };
    const out: { code: string; message: string; node?: string; field?: string } = {
      code: typeof json.code === 'string' ? json.code : 'INTERNAL',
      message: typeof json.message === 'string' ? json.message : String(error),
    };
    if (typeof json.node === 'string') out.node = json.node;
    if (typeof json.field === 'string') out.field = json.field;
    return out;
  }
  return { code: 'INTERNAL', message: String(error) };
}
