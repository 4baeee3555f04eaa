/**
 * One node visit with its `on_error` policy and `timeout`: emits node_start (each attempt),
 * `error` for each failed attempt, and node_end with the update. `raise` fails the run, `retry`
 * tries again with exponential backoff (30 s at most between attempts), `graceful` turns the
 * failure into `{__error__: {code, message, node}}`. Cancellation and budgets are never retried or
 * swallowed. A node whose action asks for a confirmation returns the PauseRequest (no node_end).
 */
import { isPauseRequest } from '../actions/pause-request.js';
import type { PauseRequest, ResumeInfo, State } from '../core/action.js';
import { AgentError, toAgentError } from '../core/agent-error.js';
import type { EventData, EventType } from '../core/events.js';
import { sleep } from '../llm/retry.js';
import type { CompiledNode } from './compiled-agent.js';
import { executeBody, type BodyHost } from './execute-body.js';

export interface NodeHost extends BodyHost {
  readonly signal: AbortSignal;
  emit<T extends EventType>(type: T, data: EventData<T>, node?: string): void;
  now(): number;
  /** Why the run's signal was aborted, when it was (a call cut by it reports this, not how it ended). */
  abortError(): AgentError | undefined;
}

/** Runs the node on `state` and returns its update (not merged) or the PauseRequest it returned. */
export async function runNode(
  host: NodeHost,
  node: CompiledNode,
  state: State,
  resume: ResumeInfo | undefined,
): Promise<Record<string, unknown> | PauseRequest> {
  const policy = node.spec.onError;
  const attempts = policy.mode === 'retry' ? policy.maxRetries + 1 : 1;
  for (let attempt = 1; ; attempt++) {
    host.emit('node_start', attempt > 1 ? { attempt } : {}, node.name);
    const started = host.now();
    let update: Record<string, unknown>;
    try {
      const body =
        node.spec.timeoutMs === undefined
          ? await executeBody(host, node.body, node.name, state, resume)
          : await withTimeout(host, node, state, resume, node.spec.timeoutMs);
      if (isPauseRequest(body)) return body;
      update = body;
    } catch (error) {
      const agentError = toAgentError(host.abortError() ?? error, 'ACTION_FAILED', { node: node.name });
      const fatal = agentError.code === 'BUDGET_EXCEEDED' || agentError.code === 'CANCELLED' || host.signal.aborted;
      host.emit('error', { ...agentError.toJSON(), node: node.name, attempt }, node.name);
      if (!fatal && attempt < attempts) {
        await sleep(Math.min(policy.backoffMs * 2 ** (attempt - 1), 30_000), host.signal);
        continue;
      }
      if (fatal || policy.mode !== 'graceful') throw agentError;
      update = { __error__: { code: agentError.code, message: agentError.message, node: node.name } };
    }
    host.emit('node_end', { update, duration_ms: host.now() - started }, node.name);
    return update;
  }
}

async function withTimeout(
  host: NodeHost,
  node: CompiledNode,
  state: State,
  resume: ResumeInfo | undefined,
  limit: number,
): Promise<Record<string, unknown> | PauseRequest> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AgentError('TIMEOUT', `node took longer than ${limit} ms`, { node: node.name })),
      limit,
    );
  });
  try {
    return await Promise.race([executeBody(host, node.body, node.name, state, resume), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
