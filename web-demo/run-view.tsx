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

/** Pauses set on the graph for the next run: node names. */
export interface NextRunPauses {
  before: string[];
  after: string[];
}

/** The graph as a navigator: the node picked, and the pauses set for the next run. */
export interface GraphNav {
  selected: string | undefined;
  select(node: string | undefined): void;
  pauseBefore: ReadonlySet<string>;
  pauseAfter: ReadonlySet<string>;
  setPause(node: string, position: 'before' | 'after', on: boolean): void;
}

type Extra = (summary: RunSummary, graph: AgentGraph | undefined, nav: GraphNav) => ExtraViews;
/** What the lazy chunk draws under the graph: the node picked, a pause to edit (also with no run shown). */
type GraphPanel = (summary: RunSummary | undefined, graph: AgentGraph | undefined, nav: GraphNav) => ComponentChildren;

export interface RunView {
  /** Draws a new graph (or none). */
  setGraph(graph: AgentGraph | undefined): void;
  /** Schedules a render of the summary. */
  show(summary: RunSummary, source?: string): void;
  clear(): void;
  /** Views rendered after the model calls (the timeline and the per-action views). */
  setExtra(views: Extra, graphPanel?: GraphPanel): void;
  /** The summary on screen. */
  shown(): RunSummary | undefined;
  /** The pauses set on the graph for the next run (nodes of the graph shown). */
  nextRunPauses(): NextRunPauses;
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
  const graphPanel = element('div', { class: 'graph-panel', id: 'graph-panel' });
  const body = element('div', { class: 'run-body', id: 'run-body' });
  replaceChildren(root, status, headline, graphBox, graphPanel, body);
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
  let extra: Extra | undefined;
  let panel: GraphPanel | undefined;
  let graphShown: AgentGraph | undefined;
  // The graph as a navigator: a node picked (its runs in the timeline), pauses for the next run.
  let selected: string | undefined;
  const pauseBefore = new Set<string>();
  const pauseAfter = new Set<string>();
  const nav = (): GraphNav => ({
    selected,
    select(node) {
      selected = node === selected ? undefined : node;
      redraw();
    },
    pauseBefore,
    pauseAfter,
    setPause(node, position, on) {
      const set = position === 'before' ? pauseBefore : pauseAfter;
      if (on) set.add(node);
      else set.delete(node);
      redraw();
    },
  });
  const redraw = () => {
    // A render already scheduled draws the newest summary with what changed here.
    if (pending) return;
    if (shown) return this_.show(shown);
    if (svg) highlightGraph(svg, { ...marksOf(undefined), ...navMarks() });
    paintGraphPanel(undefined);
  };
  const navMarks = () => ({ selected, pauseBefore, pauseAfter });
  const paintGraphPanel = (summary: RunSummary | undefined) => paint(panel?.(summary, graphShown, nav()) ?? null, graphPanel);
  const pick = (target: EventTarget | null) => {
    const node = (target as Element | null)?.closest?.('g.node[role="button"]')?.getAttribute('data-node');
    if (node) nav().select(node);
    return node !== undefined && node !== null;
  };
  graphBox.addEventListener('click', (event) => void pick(event.target));
  graphBox.addEventListener('keydown', (event) => {
    if ((event.key === 'Enter' || event.key === ' ') && pick(event.target)) event.preventDefault();
  });

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
    if (svg) highlightGraph(svg, { ...marksOf(summary), ...navMarks() });
    const views = extra?.(summary, graphShown, nav());
    paintGraphPanel(summary);
    if (RunSections) paint(<RunSections summary={summary} extra={views?.main} tail={views?.tail} hideAttempts={views?.coversAttempts === true} />, body);
    performance.measure('tea-run-view-render', { start: started, detail: { events: summary.event_count } });
  };

  const this_: RunView = {
    setGraph(graph) {
      graphShown = graph;
      svg = graph ? renderGraph(graph) : undefined;
      replaceChildren(graphBox, svg ?? element('p', { class: 'muted' }, 'The graph appears when the agent file parses.'));
      // What was picked or set on another graph stays only for the nodes this one has.
      const names = new Set(graph?.nodes.map((node) => node.name));
      if (selected !== undefined && !names.has(selected)) selected = undefined;
      for (const set of [pauseBefore, pauseAfter]) for (const name of set) if (!names.has(name)) set.delete(name);
      redraw();
    },
    show(summary, source) {
      // The label given when the run was first shown stays with it (later renders pass none).
      if (source !== undefined) labels.set(summary, source);
      pending = { summary, source: labels.get(summary) };
      if (frame === 0) frame = requestAnimationFrame(render);
    },
    setExtra(views, graphPanel) {
      extra = views;
      panel = graphPanel;
      redraw();
    },
    shown: () => shown,
    nextRunPauses: () => ({ before: [...pauseBefore], after: [...pauseAfter] }),
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
      redraw();
    },
  };
  return this_;
}

function outcomeKey(summary: RunSummary): string {
  return JSON.stringify([summary.run_id, summary.status, summary.error, summary.failed_node, summary.cancelled_node, failedCalls(summary).length, summary.calls.length, summary.stop_reason]);
}

function marksOf(summary: RunSummary | undefined): GraphMarks {
  if (!summary) return { visited: [] };
  return {
    current: summary.current_node,
    visited: summary.visited,
    failed: summary.status === 'failed' ? summary.failed_node : undefined,
    cancelled: summary.status === 'cancelled' ? summary.cancelled_node : undefined,
    // A run that failed, or whose model calls failed along the way, is drawn without green.
    runFailed: summary.status === 'failed' || failedCalls(summary).length > 0,
    // A paused run may still reach a node: only a run that ended says a node did not run.
    ended: summary.status !== 'running' && summary.status !== 'interrupted',
    paused: summary.status === 'interrupted' ? summary.pause : undefined,
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
