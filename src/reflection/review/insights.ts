/**
 * learnFromEpisode (seed 002's `learn_from_episode`): turns a review into insights and stores them
 * in the trace store under the agent, merged with what is there (same insight → occurrences
 * added, last_seen updated), newest kept up to a cap. Later reviews return them.
 */
import type { Insight, TraceStore } from '../../core/trace-store.js';
import type { FailurePattern } from './failure-patterns.js';
import type { TaskEvaluation } from './evaluate-task.js';

export const MAX_INSIGHTS = 100;

export interface EpisodeSummary {
  agent: string;
  run_id: string;
  success: boolean;
  tasks: readonly TaskEvaluation[];
  patterns: readonly FailurePattern[];
  llm_suggestions: readonly string[];
  now: string;
}

/** The insights one review teaches. */
export function insightsFrom(summary: EpisodeSummary): Insight[] {
  const insights: Insight[] = [];
  const base = { first_seen: summary.now, last_seen: summary.now, run_ids: [summary.run_id], occurrences: 1 };
  for (const pattern of summary.patterns) {
    insights.push({
      key: `pattern:${pattern.pattern_type}:${pattern.description.replace(/\d+/g, 'N')}`,
      kind: 'failure_pattern',
      pattern_type: pattern.pattern_type,
      description: pattern.description,
      suggested_fix: pattern.suggested_fix,
      ...base,
    });
  }
  for (const task of summary.tasks) {
    if (!task.success && task.error_category !== undefined) {
      insights.push({
        key: `failure:${task.node}:${task.error_category}`,
        kind: 'node_failure',
        node: task.node,
        error_category: task.error_category,
        description: task.issues[0] ?? 'failed',
        suggested_fix: task.suggestions[0] ?? null,
        should_replan: task.should_replan,
        ...base,
      });
    }
    if (task.slow === true)
      insights.push({
        key: `slow:${task.node}`,
        kind: 'slow_node',
        node: task.node,
        description: `Node '${task.node}' ran slower than usual`,
        ...base,
      });
  }
  for (const suggestion of summary.llm_suggestions)
    insights.push({ key: `llm:${suggestion.slice(0, 120)}`, kind: 'llm_suggestion', description: suggestion, ...base });
  return insights;
}

/** Stores the insights of a review; returns the agent's insights after the merge. */
export async function learnFromEpisode(
  store: TraceStore,
  summary: EpisodeSummary,
): Promise<{ stored: number; insights: Insight[] }> {
  const learned = insightsFrom(summary);
  const existing = await store.getInsights(summary.agent);
  const merged = existing.map((insight) => ({ ...insight }));
  for (const insight of learned) {
    const match = merged.find((candidate) => candidate.key === insight.key);
    if (match === undefined) {
      merged.push(insight);
      continue;
    }
    const runIds = Array.isArray(match.run_ids) ? (match.run_ids as string[]) : [];
    if (runIds.includes(summary.run_id)) continue;
    match.occurrences = (typeof match.occurrences === 'number' ? match.occurrences : 1) + 1;
    match.last_seen = summary.now;
    match.run_ids = [...runIds, summary.run_id].slice(-20);
    match.description = insight.description;
  }
  const kept = merged.slice(-MAX_INSIGHTS);
  await store.putInsights(summary.agent, kept);
  return { stored: learned.length, insights: kept };
}
