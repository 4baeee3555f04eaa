/**
 * The run budget (SPEC §1.1 settings.limits): node visits, model calls, tokens and duration.
 * Counters are plain numbers in one run's context; exceeding one throws BUDGET_EXCEEDED with the
 * budget's name as the stop reason.
 */
import { AgentError } from '../errors/agent-error.js';
import type { TokenUsage } from '../llm/types.js';
import type { LimitsSpec } from '../spec/agent-spec.js';

export interface BudgetUsage {
  steps: number;
  llm_calls: number;
  tokens: number;
}

export type BudgetName = 'max_steps' | 'max_llm_calls' | 'max_tokens' | 'max_duration_ms';

export class RunBudget {
  readonly usage: BudgetUsage;
  private readonly startedAt: number;

  constructor(
    private readonly limits: LimitsSpec,
    usage: BudgetUsage = { steps: 0, llm_calls: 0, tokens: 0 },
    private readonly now: () => number = Date.now,
  ) {
    this.usage = { ...usage };
    this.startedAt = now();
  }

  /** Counts one node visit. */
  step(node: string): void {
    this.usage.steps++;
    if (this.usage.steps > this.limits.max_steps) {
      throw exceeded('max_steps', `the run visited more than ${this.limits.max_steps} nodes (a goto cycle that never ends?)`, node);
    }
    this.checkDuration(node);
  }

  checkDuration(node?: string): void {
    const limit = this.limits.max_duration_ms;
    if (limit !== undefined && this.now() - this.startedAt > limit) {
      throw exceeded('max_duration_ms', `the run took longer than ${limit} ms`, node);
    }
  }

  beforeLlmCall(): void {
    const limit = this.limits.max_llm_calls;
    if (limit !== undefined && this.usage.llm_calls >= limit) {
      throw exceeded('max_llm_calls', `the run made ${this.usage.llm_calls} model calls, its limit`);
    }
    this.checkDuration();
    this.usage.llm_calls++;
  }

  afterLlmCall(usage: TokenUsage): void {
    this.usage.tokens += usage.total_tokens || usage.prompt_tokens + usage.completion_tokens || 0;
    const limit = this.limits.max_tokens;
    if (limit !== undefined && this.usage.tokens > limit) {
      throw exceeded('max_tokens', `the run used ${this.usage.tokens} tokens, over its limit of ${limit}`);
    }
  }
}

function exceeded(budget: BudgetName, message: string, node?: string): AgentError {
  return new AgentError('BUDGET_EXCEEDED', message, { ...(node !== undefined ? { node } : {}), details: { budget } });
}

/** The budget name of a BUDGET_EXCEEDED error, if it is one. */
export function budgetOf(error: AgentError): BudgetName | undefined {
  return error.code === 'BUDGET_EXCEEDED' ? (error.details.budget as BudgetName | undefined) : undefined;
}
