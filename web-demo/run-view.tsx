/**
 * The run view: status and stop reason, a headline for a failed or cancelled run, the agent graph
 * with the current, failed and cancelled nodes marked, the model calls (waiting, retrying,
 * failed), the streamed model output, reflection attempts side by side, ReAct steps, errors and
 * the final state. Rendering is batched to one update per animation frame, so a fast token stream
 * costs one layout per frame; the clocks of waiting calls tick every half second in between.
 */
import { render as paint, type ComponentChildren } from 'preact';
import { element, replaceChildren } from './dom.js';
import { highlightGraph, renderGraph, type GraphMarks } from './graph-view.js';
import type { AgentGraph } from './agent-graph.js';
import { failedCalls, type RunSummary } from './run-summary.js';
import type { RunSections as Sections } from './run-sections.js';
import { modelsOf, outcomeHeadline } from './run-outcome.js';

/** Views the lazy studio chunk adds: `main` after the model calls, `tail` at the end. */
export interface ExtraViews {
  main?: ComponentChildren;
  tail?: ComponentChildren;
  /** The extra views show the reflection attempts: the live list is left out. */
  coversAttempts?: boolean;
}

export interface RunView {
  /** Draws a new graph (or none). */
  setGraph(graph: AgentGraph | undefined): void;
  /** Schedules a render of the summary. */
  show(summary: RunSummary, source?: string): void;
  clear(): void;
  /** Views rendered after the model calls (the timeline and the per-action views). */
  setExtra(views: (summary: RunSummary, graph: AgentGraph | undefined) => ExtraViews): void;
  /** The summary on screen. */
  shown(): RunSummary | undefined;
  /** A graph drawn with a run's marks, apart from the page (for the HTML report). */
  drawGraph(graph: AgentGraph, summary: RunSummary): SVGElement;
}

/** Builds the run view inside `root`. */
export function createRunView(root: HTMLElement): RunView {
  // Not a live region: it changes with every event; the page announces start and end instead.
  const status = element('p', { class: 'run-status', id: 'run-status' });
  paint(<>No run yet. Pick an example and press Run.</>, status);
  const headline = element('div', { class: 'run-headline', id: 'run-headline' });
  const graphBox = element('div', { class: 'graph-box', id: 'graph' });
  const body = element('div', { class: 'run-body', id: 'run-body' });
  replaceChildren(root, status, headline, graphBox, body);
  let svg: SVGElement | undefined;
  let pending: { summary: RunSummary; source: string | undefined } | undefined;
  let shown: RunSummary | undefined;
  let frame = 0;
  // The sections (model calls, output, attempts, state…) load after the first paint: a run is
  // only shown once the user started or opened one. Until then a render shows the status line.
  let RunSections: typeof Sections | undefined;
  void import('./run-sections.js').then((module) => {
    RunSections = module.RunSections;
    if (shown) this_.show(shown);
  });
  const labels = new WeakMap<RunSummary, string>();
  let extra: ((summary: RunSummary, graph: AgentGraph | undefined) => ExtraViews) | undefined;
  let graphShown: AgentGraph | undefined;

  const render = () => {
    frame = 0;
    if (!pending) return;
    const { summary, source } = pending;
    pending = undefined;
    // Each render is a User Timing measure (read by the browser tests and bench): its cost as
    // the run grows is the cost of applying a streamed event.
    const started = performance.now();
    shown = summary;
    paint(<StatusLine summary={summary} source={source} />, status);
    status.dataset.status = summary.status;
    status.dataset.runId = summary.run_id;
    // Rebuilt only when the outcome changes, so the alert is announced once, not on every render.
    const outcome = outcomeKey(summary);
    if (outcome !== headline.dataset.outcome) {
      headline.dataset.outcome = outcome;
      replaceChildren(headline, outcomeHeadline(summary));
    }
    if (svg) highlightGraph(svg, marksOf(summary));
    const views = extra?.(summary, graphShown);
    if (RunSections) paint(<RunSections summary={summary} extra={views?.main} tail={views?.tail} hideAttempts={views?.coversAttempts === true} />, body);
    performance.measure('tea-run-view-render', { start: started, detail: { events: summary.event_count } });
  };

  const this_: RunView = {
    setGraph(graph) {
      graphShown = graph;
      svg = graph ? renderGraph(graph) : undefined;
      replaceChildren(graphBox, svg ?? element('p', { class: 'muted' }, 'The graph appears when the agent file parses.'));
      if (svg && shown) highlightGraph(svg, marksOf(shown));
    },
    show(summary, source) {
      // The label given when the run was first shown stays with it (later renders pass none).
      if (source !== undefined) labels.set(summary, source);
      pending = { summary, source: labels.get(summary) };
      if (frame === 0) frame = requestAnimationFrame(render);
    },
    setExtra(views) {
      extra = views;
      if (shown) this_.show(shown);
    },
    shown: () => shown,
    drawGraph(graph, summary) {
      const drawn = renderGraph(graph);
      highlightGraph(drawn, marksOf(summary));
      return drawn;
    },
    clear() {
      pending = undefined;
      shown = undefined;
      paint(<>No run yet. Pick an example and press Run.</>, status);
      headline.replaceChildren();
      delete headline.dataset.outcome;
      paint(null, body);
      if (svg) highlightGraph(svg, { visited: [] });
    },
  };
  return this_;
}

function outcomeKey(summary: RunSummary): string {
  return JSON.stringify([summary.run_id, summary.status, summary.error, summary.failed_node, summary.cancelled_node, failedCalls(summary).length, summary.calls.length, summary.stop_reason]);
}

function marksOf(summary: RunSummary): GraphMarks {
  return {
    current: summary.current_node,
    visited: summary.visited,
    failed: summary.status === 'failed' ? summary.failed_node : undefined,
    cancelled: summary.status === 'cancelled' ? summary.cancelled_node : undefined,
    // A run that failed, or whose model calls failed along the way, is drawn without green.
    runFailed: summary.status === 'failed' || failedCalls(summary).length > 0,
  };
}

function StatusLine({ summary, source }: { summary: RunSummary; source: string | undefined }) {
  const troubled = summary.status !== 'running' && summary.status !== 'failed' && failedCalls(summary).length > 0;
  // Which model answered is read from the run's own calls: the settings may have changed since.
  const models = modelsOf(summary);
  return (
    <>
      <strong class={`badge status-${summary.status}${troubled ? ' with-failures' : ''}`}>{summary.status}</strong>
      {summary.agent ? ` ${summary.agent}` : null}
      {summary.current_node ? <>{' · at '}<code>{summary.current_node}</code></> : null}
      {summary.stop_reason ? <>{' · stop reason: '}<code id="stop-reason">{summary.stop_reason}</code></> : null}
      {` · ${summary.event_count} event${summary.event_count === 1 ? '' : 's'} · ${summary.llm_calls} model call${summary.llm_calls === 1 ? '' : 's'}`}
      {source ? ` · ${source}` : null}
      {models ? <>{' · model '}<span id="run-models">{models}</span></> : null}
    </>
  );
}
