/**
 * TEA's `type: dynamic_parallel` node (docs nodes.md "Method 7", Python yaml_nodes.py):
 *
 *   items ← render(items)                       (null → []; anything but a list fails the node)
 *   for each (item, index), at most max_concurrency at once:
 *     branch state ← deep copy of state ⊕ {item_var: item, index_var: index}
 *     run the branch body (`action:` or `steps:`)
 *   parallel_results ← one result per item, in item order
 *
 * As in Python: a branch that fails is recorded (`success: false`), it does not fail the node;
 * with `fail_fast`, branches not yet started are recorded as cancelled. An action branch's state
 * is its update plus the item and index; a steps branch's state is its whole working state.
 * Budgets are the run's: each branch counts one step per body step, and its model calls count
 * against max_llm_calls / max_tokens; running out stops the whole run.
 * Besides Python: the item and index are also template names (`{{ url }}`, as TEA's docs write),
 * and `output: key` stores the results under `key` as well (TEA's docs and examples read it there;
 * Python writes only `parallel_results`).
 */
import type { State } from '../core/action.js';
import { AgentError, toAgentError } from '../core/agent-error.js';
import { mergeShallow } from '../util/safe-json.js';
import type { CompiledBody, CompiledDynamicParallel } from './compiled-agent.js';
import { isPauseRequest } from '../actions/pause-request.js';
import type { BodyHost, BodyResult } from './body-host.js';
import { parallelResult, type ParallelResult } from './run-parallel.js';

type Execute = (host: BodyHost, body: CompiledBody, node: string, state: State) => BodyResult | Promise<BodyResult>;

/** Concurrency when neither the node nor settings.parallel says (the static fan-out's default). */
const DEFAULT_CONCURRENCY = 4;
const MAX_CONCURRENCY = 64;

export async function runDynamicParallel(
  host: BodyHost,
  fanOut: CompiledDynamicParallel,
  node: string,
  state: State,
  execute: Execute,
): Promise<Record<string, unknown>> {
  const items = itemsOf(fanOut.items.render(host.baseScope(state)), node);
  const settings = host.agent.spec.settings.parallel ?? {};
  const limit = Math.max(
    1,
    Math.min(fanOut.maxConcurrency ?? settings.max_concurrency ?? DEFAULT_CONCURRENCY, MAX_CONCURRENCY),
  );
  const results: ParallelResult[] = new Array(items.length);
  let failed = false;
  let next = 0;

  const runBranch = async (index: number): Promise<void> => {
    const item = items[index];
    const branch = `${node}[${index}]`;
    const injected = { [fanOut.itemVar]: item, [fanOut.indexVar]: index };
    if (fanOut.failFast && failed) {
      results[index] = parallelResult(
        branch,
        false,
        injected,
        { code: 'CANCELLED', message: 'cancelled: another branch failed (fail_fast)' },
        0,
      );
      return;
    }
    const started = host.now();
    try {
      if (host.signal.aborted) throw new AgentError('CANCELLED', 'the run was cancelled', { node });
      const steps = fanOut.branch.kind === 'steps' ? fanOut.branch.steps.length : 1;
      for (let step = 0; step < steps; step++) host.stepBudget(node);
      const branchState = mergeShallow(structuredClone(state), structuredClone(injected));
      const update = await execute(branchHost(host, injected, index), fanOut.branch, node, branchState);
      if (isPauseRequest(update))
        throw new AgentError(
          'INVALID_AGENT',
          'a tool confirmation cannot pause a run inside a dynamic_parallel branch',
          { node },
        );
      const finalState =
        fanOut.branch.kind === 'steps'
          ? mergeShallow(branchState, update)
          : mergeShallow({ ...update }, structuredClone(injected));
      results[index] = parallelResult(branch, true, finalState, null, host.now() - started);
    } catch (error) {
      const agentError = toAgentError(error, 'ACTION_FAILED', { node });
      if (agentError.code === 'BUDGET_EXCEEDED' || host.signal.aborted) throw agentError;
      failed = true;
      results[index] = parallelResult(
        branch,
        false,
        injected,
        { code: agentError.code, message: agentError.message, node },
        host.now() - started,
      );
    }
  };
  const worker = async (): Promise<void> => {
    while (next < items.length) await runBranch(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  const successful = results.filter((result) => result.success).length;
  host.emit(
    'log',
    {
      source: 'dynamic_parallel',
      message: `dynamic_parallel '${node}': ${successful} of ${items.length} branch(es) succeeded`,
      total_branches: items.length,
      successful,
      failed: items.length - successful,
    },
    node,
  );
  const update: Record<string, unknown> = { parallel_results: results };
  if (fanOut.output !== undefined) update[fanOut.output] = results;
  return update;
}

function itemsOf(value: unknown, node: string): unknown[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value;
  const kind = typeof value === 'object' ? 'an object' : typeof value === 'string' ? 'a string' : `a ${typeof value}`;
  throw new AgentError('INVALID_PARAMS', `dynamic_parallel \`items\` must give a list, got ${kind}`, {
    node,
    field: 'items',
  });
}

/**
 * The run's host, with the item and index as template names (the scope's own names win). Each
 * item's branch has its own idempotency keys (`run_id:node#item<index>:step`). Everything else is
 * the run's host itself: its methods run bound to it, so what they record stays the run's.
 */
function branchHost(host: BodyHost, injected: Record<string, unknown>, index: number): BodyHost {
  const item = (node: string) => `${node}#item${index}`;
  const overrides: Partial<BodyHost> = {
    baseScope: (state) => ({ ...injected, ...host.baseScope(state) }),
    idempotencyKey: (node) => host.idempotencyKey(item(node)),
    onceRecorded: (node, tool, call, replayed) => host.onceRecorded(item(node), tool, call, replayed),
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(host, {
    get(target, key) {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof BodyHost];
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== 'function') return value;
      if (!bound.has(key)) bound.set(key, value.bind(target));
      return bound.get(key);
    },
  });
}
