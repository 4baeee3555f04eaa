/**
 * Parallel fan-out / fan-in (docs/spec.md#15-parallel-fan-out--fan-in). Each branch starts from a deep copy of the state and runs
 * node by node until it reaches the fan-in node (or __end__), with at most
 * `settings.parallel.max_concurrency` (default 4) branches at once. The result is
 * `parallel_results`: one `{branch, success, state, error, timing_ms}` per branch, in declaration
 * order. Branch states are not merged. A failing branch cancels the others only with `fail_fast`.
 */
import type { AgentSettings } from '../core/agent-settings.js';
import { isPauseRequest } from '../actions/pause-request.js';
import type { PauseRequest, State } from '../core/action.js';
import { AgentError, toAgentError } from '../core/agent-error.js';
import type { CompiledNode } from './compiled-agent.js';
import { nextNode, type ParallelRoute } from './route.js';
import { END } from '../spec/agent-spec.js';

export interface ParallelHost {
  readonly agent: { nodes: ReadonlyMap<string, CompiledNode> };
  readonly signal: AbortSignal;
  baseScope(state: State): Record<string, unknown>;
  runNode(node: CompiledNode, state: State, resume: undefined, mainFlow: boolean): Promise<State | PauseRequest>;
  now(): number;
  stepBudget(node: string): void;
}

/**
 * One branch's result. Like TEA's ParallelFlowResult, it answers the branch state's keys directly
 * (`parallel_results[0].answer` is `parallel_results[0].state.answer`), in templates and in Lua
 * alike, because those keys are copied onto the result as plain JSON: the result serialises the
 * same in every runtime and in events. The result's own fields win over a state key of the same
 * name (as in TEA), and a branch's own `parallel_results` is not copied (nested fan-outs would
 * otherwise double in size at every level; it stays readable under `state`).
 */
export interface ParallelResult {
  branch: string;
  success: boolean;
  state: State | null;
  error: { code: string; message: string; node?: string } | null;
  timing_ms: number;
  [stateKey: string]: unknown;
}

const RESULT_FIELDS: ReadonlySet<string> = new Set([
  'branch',
  'success',
  'state',
  'error',
  'timing_ms',
  'parallel_results',
]);

export function parallelResult(
  branch: string,
  success: boolean,
  state: State | null,
  error: ParallelResult['error'],
  timingMs: number,
): ParallelResult {
  const result: ParallelResult = { branch, success, state, error, timing_ms: timingMs };
  for (const key of Object.keys(state ?? {})) {
    if (!RESULT_FIELDS.has(key)) result[key] = state![key];
  }
  return result;
}

export async function runParallel(
  host: ParallelHost,
  route: ParallelRoute,
  state: State,
  settings: AgentSettings,
): Promise<ParallelResult[]> {
  const parallel = settings.parallel ?? {};
  const limit = Math.max(1, Math.min(parallel.max_concurrency ?? 4, 64));
  const results: ParallelResult[] = new Array(route.branches.length);
  let failed = false;
  let nextIndex = 0;

  const runBranch = async (index: number): Promise<void> => {
    const branch = route.branches[index]!;
    const started = host.now();
    let branchState = structuredClone(state);
    try {
      let current = branch;
      while (current !== route.fanIn && current !== END) {
        if (failed && route.failFast) throw new AgentError('CANCELLED', 'another branch failed (fail_fast)');
        if (host.signal.aborted) throw new AgentError('CANCELLED', 'the run was cancelled');
        const node = host.agent.nodes.get(current);
        if (node === undefined) throw new AgentError('NO_ROUTE', `node '${current}' does not exist`);
        if (node.interruptBefore || node.interruptAfter) {
          throw new AgentError('INVALID_AGENT', 'interrupts are not supported inside parallel branches', {
            node: current,
          });
        }
        host.stepBudget(current);
        const ran = await host.runNode(node, branchState, undefined, false);
        if (isPauseRequest(ran))
          throw new AgentError('ACTION_FAILED', 'a confirmation pause is not supported inside parallel branches', {
            node: current,
          });
        branchState = ran;
        const next = nextNode(node, host.baseScope(branchState));
        if (typeof next !== 'string')
          throw new AgentError('INVALID_AGENT', 'nested parallel fan-out inside a branch is not supported', {
            node: current,
          });
        current = next;
      }
      results[index] = parallelResult(branch, true, branchState, null, host.now() - started);
    } catch (error) {
      const agentError = toAgentError(error, 'ACTION_FAILED');
      if (agentError.code === 'BUDGET_EXCEEDED') throw agentError;
      failed = true;
      const failure: ParallelResult['error'] = { code: agentError.code, message: agentError.message };
      if (agentError.node !== undefined) failure.node = agentError.node;
      results[index] = parallelResult(branch, false, null, failure, host.now() - started);
    }
  };

  const worker = async (): Promise<void> => {
    while (nextIndex < route.branches.length) {
      const index = nextIndex++;
      await runBranch(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, route.branches.length) }, worker));
  return results;
}
