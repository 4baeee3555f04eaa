/**
 * reviewRun: the run reviewer (docs/spec.md#54-run-review-the-reflector-seed-002, seed 002's Reflector) as a library function over the
 * TraceStore contract. It reads a run's events, evaluates every node execution (task) and the
 * run as a whole (plan) against the criteria, compares durations with earlier runs of the same
 * agent, detects failure patterns in the run and across stored runs, optionally asks a model for
 * suggestions, and with `learn` stores insights that later reviews return.
 *
 * @example
 * const review = await reviewRun({ traceStore, runId, criteria: { min_success_rate: 0.9 } });
 * review.plan.success; review.tasks[0].should_replan; review.failure_patterns;
 */
import { AgentError } from '../../core/agent-error.js';
import type { AgentEvent } from '../../core/events.js';
import renderReviewPrompt from '../../prompts/judge-review.eta';
import { parseModelOutput } from '../../reasoning/parse-output.js';
import type { Insight, RunRecord, TraceStore } from '../../core/trace-store.js';
import { isControlFlow } from '../control-flow.js';
import { evaluateTask, type TaskEvaluation } from './evaluate-task.js';
import { historyPatterns, runPatterns, type FailurePattern } from './failure-patterns.js';
import { learnFromEpisode } from './insights.js';
import { readCriteria, type ReviewCriteria } from './review-criteria.js';
import { loadRunHistory, pastRun } from './run-history.js';
import { tasksFromEvents } from './task-executions.js';
import { cutText } from '../../util/cut-text.js';

export interface ReviewRunOptions {
  traceStore: TraceStore;
  runId: string;
  criteria?: Partial<ReviewCriteria>;
  /** Asks a model for suggestions (seed 002's enable_llm_reflection); used when given unless `enableLlmReflection: false`. */
  llm?: (prompt: string) => Promise<string>;
  enableLlmReflection?: boolean;
  /** Store this review's insights (learn_from_episode). */
  learn?: boolean;
  /** Earlier runs of the agent to compare with (20). */
  historyLimit?: number;
  /** Use these events instead of the stored ones (a run still in progress). */
  events?: AgentEvent[];
  now?: () => number;
}

/** Seed 002's Evaluation for the whole run, plus its success rate. */
export interface PlanEvaluation {
  plan_id: string;
  success: boolean;
  confidence: number;
  success_rate: number;
  issues: string[];
  suggestions: string[];
  should_replan: boolean;
}

export interface Review {
  run_id: string;
  agent: string;
  status: string;
  success: boolean;
  should_replan: boolean;
  issues: string[];
  suggestions: string[];
  plan: PlanEvaluation;
  tasks: TaskEvaluation[];
  failure_patterns: FailurePattern[];
  llm_suggestions: string[];
  criteria: ReviewCriteria;
  insights: Insight[];
  learned: number;
  compared_runs: number;
  reviewed_at: string;
}

export async function reviewRun(options: ReviewRunOptions): Promise<Review> {
  const store = options.traceStore;
  const criteria = readCriteria(options.criteria);
  const now = new Date((options.now ?? Date.now)()).toISOString();
  const events = options.events ?? (await store.readEvents(options.runId));
  const stored = await store.getRun(options.runId);
  if (stored === undefined && events.length === 0)
    throw new AgentError('NOT_FOUND', `run '${options.runId}' was not found in the trace store`, {
      details: { run_id: options.runId },
    });
  const record: RunRecord = stored ?? {
    run_id: options.runId,
    agent: agentOf(events),
    status: 'running',
    created_at: events[0]?.ts ?? now,
    updated_at: now,
  };
  const history = await loadRunHistory(store, record, options.historyLimit ?? 20);

  const executions = tasksFromEvents(events);
  const tasks = executions.map((task) => evaluateTask(task, criteria, history.medians.get(task.node)));
  const succeeded = tasks.filter((task) => task.success).length;
  const successRate = tasks.length === 0 ? 1 : succeeded / tasks.length;
  const patterns = [
    ...runPatterns(tasks, successRate, criteria.min_success_rate, now),
    ...historyPatterns(pastRun(record.run_id, record.status, executions), history.runs, criteria.min_success_rate, now),
  ];

  const issues: string[] = [];
  if (successRate < criteria.min_success_rate)
    issues.push(
      `Success rate ${Math.round(successRate * 100)}% is below the minimum ${Math.round(criteria.min_success_rate * 100)}%`,
    );
  if (criteria.require_all_tasks_complete) {
    const unfinished = tasks.filter((task) => !task.success);
    if (unfinished.length > 0)
      issues.push(
        `${unfinished.length} node execution(s) did not complete successfully: ${unfinished.map((task) => task.task_id).join(', ')}`,
      );
    if (record.status !== 'completed' && record.status !== 'running')
      issues.push(
        `The run ended with status '${record.status}'${record.error !== undefined ? `: ${record.error.message}` : ''}`,
      );
  }
  for (const task of tasks) for (const issue of task.issues) issues.push(`${task.task_id}: ${issue}`);
  const suggestions = unique([
    ...tasks.flatMap((task) => task.suggestions),
    ...patterns.map((pattern) => pattern.suggested_fix).filter((fix): fix is string => fix !== null),
  ]);

  const llmSuggestions: string[] = [];
  if (options.llm !== undefined && options.enableLlmReflection !== false) {
    try {
      llmSuggestions.push(...(await askForSuggestions(options.llm, record, tasks, successRate, issues, patterns)));
    } catch (error) {
      if (isControlFlow(error)) throw error;
      issues.push(`LLM reflection failed: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  const complete =
    !criteria.require_all_tasks_complete ||
    (tasks.every((task) => task.success) && (record.status === 'completed' || record.status === 'running'));
  const success = successRate >= criteria.min_success_rate && complete;
  const plan: PlanEvaluation = {
    plan_id: record.run_id,
    success,
    confidence: tasks.length === 0 ? 0.5 : round(tasks.reduce((sum, task) => sum + task.confidence, 0) / tasks.length),
    success_rate: round(successRate),
    issues,
    suggestions: unique([...suggestions, ...llmSuggestions]),
    should_replan: !success && tasks.some((task) => task.should_replan),
  };

  let insights = await store.getInsights(record.agent);
  let learned = 0;
  if (options.learn === true) {
    const outcome = await learnFromEpisode(store, {
      agent: record.agent,
      run_id: record.run_id,
      success,
      tasks,
      patterns,
      llm_suggestions: llmSuggestions,
      now,
    });
    insights = outcome.insights;
    learned = outcome.stored;
  }
  return {
    run_id: record.run_id,
    agent: record.agent,
    status: record.status,
    success,
    should_replan: plan.should_replan,
    issues,
    suggestions: plan.suggestions,
    plan,
    tasks,
    failure_patterns: patterns,
    llm_suggestions: llmSuggestions,
    criteria,
    insights,
    learned,
    compared_runs: history.runs.length,
    reviewed_at: now,
  };
}

async function askForSuggestions(
  llm: (prompt: string) => Promise<string>,
  record: RunRecord,
  tasks: TaskEvaluation[],
  successRate: number,
  issues: string[],
  patterns: FailurePattern[],
): Promise<string[]> {
  const prompt = renderReviewPrompt({
    agent: record.agent,
    status: record.status,
    taskCount: tasks.length,
    succeeded: tasks.filter((task) => task.success).length,
    successRate: `${Math.round(successRate * 100)}%`,
    issues: issues.slice(0, 20),
    patterns: patterns.map((pattern) => pattern.description).slice(0, 10),
  });
  const reply = await llm(prompt);
  const parsed = parseModelOutput(reply);
  let items: unknown[] = [];
  if (parsed.ok && Array.isArray(parsed.value)) items = parsed.value;
  else if (
    parsed.ok &&
    typeof parsed.value === 'object' &&
    parsed.value !== null &&
    Array.isArray((parsed.value as { suggestions?: unknown }).suggestions)
  )
    items = (parsed.value as { suggestions: unknown[] }).suggestions;
  else
    items = reply
      .split('\n')
      .map((line) => /^\s*(?:[-*•]|\d+[.)])\s+(.+)$/.exec(line)?.[1])
      .filter((line) => line !== undefined);
  return items
    .filter((item): item is string => typeof item === 'string' && item.trim() !== '')
    .map((item) => cutText(item.trim(), 500))
    .slice(0, 10);
}

function agentOf(events: readonly AgentEvent[]): string {
  const start = events.find((event) => event.type === 'run_start');
  return typeof start?.data.agent === 'string' ? start.data.agent : 'unknown';
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
