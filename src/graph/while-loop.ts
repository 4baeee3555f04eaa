/**
 * TEA's `type: while_loop` node, as TEA's Python runtime runs it (yaml_nodes.py, docs
 * nodes.md "Method 6"):
 *
 *   working ← state; i ← 0
 *   while i < max_iterations:
 *     if not condition(working): break          (checked before each iteration)
 *     for each body node: working ← working ⊕ update
 *     i ← i + 1
 *   exit_reason ← i ≥ max_iterations ? "max_iterations_reached" : "condition_false"
 *
 * Reaching the cap ends the loop normally (Python; Rust fails the run instead). As in Python, a
 * loop whose condition turns false exactly on the last allowed iteration still reports
 * `max_iterations_reached`, because the reason is decided by the count. The exit reason is in a
 * `log` event `{source: "while_loop", iterations_completed, exit_reason}` (TEA's LoopEnd event).
 * Every body node run counts one step against max_steps. A body error ends the loop and the node,
 * naming the body node and the iteration (TEA: "Error in while_loop 'X' body node 'Y' at iteration i").
 */
import type { State } from '../core/action.js';
import { AgentError, toAgentError } from '../core/agent-error.js';
import { mergeShallow } from '../util/safe-json.js';
import type { CompiledBody, CompiledWhileLoop } from './compiled-agent.js';
import { isPauseRequest } from '../actions/pause-request.js';
import type { BodyHost, BodyResult } from './body-host.js';

export type ExitReason = 'condition_false' | 'max_iterations_reached';

type Execute = (host: BodyHost, body: CompiledBody, node: string, state: State) => BodyResult | Promise<BodyResult>;

export async function runWhileLoop(
  host: BodyHost,
  loop: CompiledWhileLoop,
  node: string,
  state: State,
  execute: Execute,
): Promise<Record<string, unknown>> {
  const working: State = { ...state };
  const update: Record<string, unknown> = {};
  let iteration = 0;
  while (iteration < loop.maxIterations) {
    if (!loop.condition.evaluate(host.baseScope(working)).truthy) break;
    for (const body of loop.body) {
      if (host.signal.aborted) throw new AgentError('CANCELLED', 'the run was cancelled', { node });
      host.stepBudget(node);
      let bodyUpdate: BodyResult;
      try {
        bodyUpdate = await execute(host, body, node, working);
      } catch (error) {
        throw inLoop(error, loop, body, node, iteration);
      }
      // A pause would resume the node from its start with the iteration's work lost: refused instead.
      if (isPauseRequest(bodyUpdate))
        throw new AgentError(
          'INVALID_AGENT',
          'a tool confirmation cannot pause a run inside a while_loop body; confirm the tool in a node of its own',
          { node },
        );
      mergeShallow(working, bodyUpdate);
      mergeShallow(update, bodyUpdate);
    }
    iteration++;
    // Iterations within every budget can still be many: the host gets its turn between them.
    await host.breathe();
  }
  const exitReason: ExitReason = iteration >= loop.maxIterations ? 'max_iterations_reached' : 'condition_false';
  host.emit(
    'log',
    {
      source: 'while_loop',
      message: `while_loop '${node}' ended after ${iteration} iteration(s): ${exitReason}`,
      iterations_completed: iteration,
      exit_reason: exitReason,
    },
    node,
  );
  return update;
}

/** A body failure names the body node and the iteration; budget and cancel errors pass unchanged. */
function inLoop(
  error: unknown,
  loop: CompiledWhileLoop,
  body: CompiledBody,
  node: string,
  iteration: number,
): AgentError {
  const agentError = toAgentError(error, 'ACTION_FAILED', { node });
  if (agentError.code === 'BUDGET_EXCEEDED' || agentError.code === 'CANCELLED') return agentError;
  const step = body.label.slice(loop.label.length + 1) || body.label;
  return new AgentError(
    agentError.code,
    `while_loop body node '${step}' failed at iteration ${iteration}: ${agentError.message}`,
    {
      ...agentError.location,
      node,
      details: { ...agentError.details, iteration, body_node: step },
      cause: agentError,
    },
  );
}
