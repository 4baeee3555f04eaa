/**
 * The run budget (settings.limits, see docs/execution-model.md): node visits, model calls, tokens,
 * duration and bytes written. Counters are plain numbers in one run's context; exceeding one throws
 * BUDGET_EXCEEDED with the budget's name in `details.budget`, which becomes the run's stop reason.
 *
 * Defaults and host ceilings live here and nowhere else (docs/security.md lists them):
 *
 *   budget            default   ceiling
 *   max_steps         1000      100000
 *   max_llm_calls     100       10000      (a looping agent on a paid API stops at 100 calls)
 *   max_tokens        none      100000000
 *   max_duration_ms   none      86400000   (enforced by a timer that aborts the run's signal)
 *   max_write_bytes   16 MiB    256 MiB    (file.write content, charged before the write)
 */
import { AgentError } from '../core/agent-error.js';
import type { TokenUsage } from '../core/model-provider.js';
import type { LimitsSpec } from '../spec/agent-spec.js';

export interface BudgetUsage {
  steps: number;
  llm_calls: number;
  tokens: number;
  /** Bytes the run's writes handed to the file root (absent in checkpoints older than the budget). */
  written_bytes?: number;
}

export type BudgetName = 'max_steps' | 'max_llm_calls' | 'max_tokens' | 'max_duration_ms' | 'max_write_bytes';

export const BUDGET_NAMES: readonly BudgetName[] = [
  'max_steps',
  'max_llm_calls',
  'max_tokens',
  'max_duration_ms',
  'max_write_bytes',
];

/** What a run gets when neither the agent nor the host sets a budget. */
export const BUDGET_DEFAULTS: Readonly<{ max_steps: number; max_llm_calls: number; max_write_bytes: number }> =
  Object.freeze({
    max_steps: 1000,
    max_llm_calls: 100,
    max_write_bytes: 16 * 1024 * 1024,
  });

/** The largest value an agent, a host option or a CLI flag may set. */
export const BUDGET_CEILINGS: Readonly<Record<BudgetName, number>> = Object.freeze({
  max_steps: 100_000,
  max_llm_calls: 10_000,
  max_tokens: 100_000_000,
  max_duration_ms: 86_400_000,
  max_write_bytes: 256 * 1024 * 1024,
});

export type Limits = LimitsSpec & { max_llm_calls: number; max_write_bytes: number };

/**
 * The limits a run runs under. Each budget is, in order of precedence: the operator's override
 * (`tea-edge run --max-llm-calls N`), else the agent's `settings.limits`, else the default; then
 * the host's tighter limits (`RunOptions.limits`, e.g. a server's) take the minimum, and every value
 * is capped at its ceiling.
 */
export function resolveLimits(
  agent: Partial<LimitsSpec>,
  host: Partial<LimitsSpec> = {},
  overrides: Partial<LimitsSpec> = {},
): Limits {
  const limits: Partial<Record<BudgetName, number>> = {};
  for (const name of BUDGET_NAMES) {
    let value =
      finite(overrides[name]) ?? finite(agent[name]) ?? (BUDGET_DEFAULTS as Partial<Record<BudgetName, number>>)[name];
    const tighter = finite(host[name]);
    if (tighter !== undefined) value = value === undefined ? tighter : Math.min(value, tighter);
    if (value !== undefined) limits[name] = Math.min(value, BUDGET_CEILINGS[name]);
  }
  return limits as Limits;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export class RunBudget {
  readonly usage: BudgetUsage;
  private readonly startedAt: number;

  constructor(
    readonly limits: Limits,
    usage: BudgetUsage = { steps: 0, llm_calls: 0, tokens: 0 },
    private readonly now: () => number = Date.now,
    /** When the duration budget started (a run continued after its host died keeps its start). */
    startedAt?: number,
  ) {
    this.usage = { ...usage };
    this.startedAt = startedAt ?? now();
  }

  /** When the duration budget started (epoch ms of the run's clock). */
  get started(): number {
    return this.startedAt;
  }

  /** Counts one node visit. */
  step(node: string): void {
    this.usage.steps++;
    if (this.usage.steps > this.limits.max_steps) {
      throw exceeded(
        'max_steps',
        `the run visited more than ${this.limits.max_steps} nodes (a goto cycle that never ends?)`,
        node,
      );
    }
    this.checkDuration(node);
  }

  /** Milliseconds left of max_duration_ms (undefined when there is no duration budget). */
  remainingMs(): number | undefined {
    const limit = this.limits.max_duration_ms;
    return limit === undefined ? undefined : limit - (this.now() - this.startedAt);
  }

  checkDuration(node?: string): void {
    const remaining = this.remainingMs();
    if (remaining !== undefined && remaining < 0) throw durationExceeded(this.limits.max_duration_ms!, node);
  }

  beforeLlmCall(): void {
    const limit = this.limits.max_llm_calls;
    if (this.usage.llm_calls >= limit) {
      throw exceeded(
        'max_llm_calls',
        `the run made ${this.usage.llm_calls} model calls, its limit (raise it with settings.limits.max_llm_calls or --max-llm-calls)`,
      );
    }
    this.checkDuration();
    this.usage.llm_calls++;
  }

  /**
   * Counts `bytes` about to be written by `node`; refuses them (BUDGET_EXCEEDED, budget
   * max_write_bytes) when they would take the run past its budget, so nothing of a refused write
   * reaches the file root. A write that then fails still counts: the budget bounds what was tried.
   */
  chargeWrite(bytes: number, node?: string): void {
    const written = this.usage.written_bytes ?? 0;
    const limit = this.limits.max_write_bytes;
    if (written + bytes > limit) {
      throw exceeded(
        'max_write_bytes',
        `writing ${bytes} more bytes would take the run past its max_write_bytes of ${limit} (${written} written so far)`,
        node,
      );
    }
    this.usage.written_bytes = written + bytes;
  }

  afterLlmCall(usage: TokenUsage): void {
    this.usage.tokens += usage.total_tokens || usage.prompt_tokens + usage.completion_tokens || 0;
    const limit = this.limits.max_tokens;
    if (limit !== undefined && this.usage.tokens > limit) {
      throw exceeded('max_tokens', `the run used ${this.usage.tokens} tokens, over its limit of ${limit}`);
    }
  }
}

/** The error of a run that ran out of time (also the reason its signal is aborted with). */
export function durationExceeded(limit: number, node?: string): AgentError {
  return exceeded('max_duration_ms', `the run took longer than its max_duration_ms of ${limit} ms`, node);
}

function exceeded(budget: BudgetName, message: string, node?: string): AgentError {
  return new AgentError('BUDGET_EXCEEDED', message, { ...(node !== undefined ? { node } : {}), details: { budget } });
}

/** The budget name of a BUDGET_EXCEEDED error, if it is one. */
export function budgetOf(error: AgentError): BudgetName | undefined {
  return error.code === 'BUDGET_EXCEEDED' ? (error.details.budget as BudgetName | undefined) : undefined;
}
