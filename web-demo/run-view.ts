/**
 * The run view: status and stop reason, a headline for a failed or cancelled run, the agent graph
 * with the current, failed and cancelled nodes marked, the model calls (waiting, retrying,
 * failed), the streamed model output, reflection attempts side by side, ReAct steps, errors and
 * the final state. Rendering is batched to one update per animation frame, so a fast token stream
 * costs one layout per frame; the clocks of waiting calls tick every half second in between.
 */
import { element, formatJson, replaceChildren } from './dom.js';
import { highlightGraph, renderGraph, type GraphMarks } from './graph-view.js';
import type { AgentGraph } from './agent-graph.js';
import { failedCalls, type RunSummary } from './run-summary.js';
import { modelCallsList, tickCalls } from './model-calls-view.js';
import { outcomeHeadline } from './run-outcome.js';

export interface RunView {
  /** Draws a new graph (or none). */
  setGraph(graph: AgentGraph | undefined): void;
  /** Schedules a render of the summary. */
  show(summary: RunSummary, source?: string): void;
  clear(): void;
}

/** Builds the run view inside `root`. */
export function createRunView(root: HTMLElement): RunView {
  // Not a live region: it changes with every event; the page announces start and end instead.
  const status = element('p', { class: 'run-status', id: 'run-status' }, 'No run yet. Pick an example and press Run.');
  const headline = element('div', { class: 'run-headline', id: 'run-headline' });
  const graphBox = element('div', { class: 'graph-box', id: 'graph' });
  const body = element('div', { class: 'run-body', id: 'run-body' });
  replaceChildren(root, status, headline, graphBox, body);
  let svg: SVGElement | undefined;
  let pending: { summary: RunSummary; source: string | undefined } | undefined;
  let shown: RunSummary | undefined;
  let frame = 0;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const keepTicking = (running: boolean) => {
    const live = running && tickCalls(body);
    if (live && ticker === undefined) ticker = setInterval(() => tickCalls(body), 500);
    if (!live && ticker !== undefined) {
      clearInterval(ticker);
      ticker = undefined;
    }
  };

  const render = () => {
    frame = 0;
    if (!pending) return;
    const { summary, source } = pending;
    pending = undefined;
    shown = summary;
    replaceChildren(status, ...statusLine(summary, source));
    status.dataset.status = summary.status;
    status.dataset.runId = summary.run_id;
    // Rebuilt only when the outcome changes, so the alert is announced once, not on every render.
    const outcome = outcomeKey(summary);
    if (outcome !== headline.dataset.outcome) {
      headline.dataset.outcome = outcome;
      replaceChildren(headline, outcomeHeadline(summary));
    }
    if (svg) highlightGraph(svg, marksOf(summary));
    replaceChildren(body, ...sections(summary));
    keepTicking(summary.status === 'running');
  };

  return {
    setGraph(graph) {
      svg = graph ? renderGraph(graph) : undefined;
      replaceChildren(graphBox, svg ?? element('p', { class: 'muted' }, 'The graph appears when the agent file parses.'));
      if (svg && shown) highlightGraph(svg, marksOf(shown));
    },
    show(summary, source) {
      pending = { summary, source };
      if (frame === 0) frame = requestAnimationFrame(render);
    },
    clear() {
      pending = undefined;
      shown = undefined;
      replaceChildren(status, 'No run yet. Pick an example and press Run.');
      headline.replaceChildren();
      delete headline.dataset.outcome;
      body.replaceChildren();
      keepTicking(false);
      if (svg) highlightGraph(svg, { visited: [] });
    },
  };
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

function statusLine(summary: RunSummary, source: string | undefined): (Node | string)[] {
  const troubled = summary.status !== 'running' && summary.status !== 'failed' && failedCalls(summary).length > 0;
  const parts: (Node | string)[] = [element('strong', { class: `badge status-${summary.status}${troubled ? ' with-failures' : ''}` }, summary.status)];
  if (summary.agent) parts.push(` ${summary.agent}`);
  if (summary.current_node) parts.push(' · at ', element('code', {}, summary.current_node));
  if (summary.stop_reason) parts.push(' · stop reason: ', element('code', { id: 'stop-reason' }, summary.stop_reason));
  parts.push(` · ${summary.event_count} event${summary.event_count === 1 ? '' : 's'} · ${summary.llm_calls} model call${summary.llm_calls === 1 ? '' : 's'}`);
  if (source) parts.push(` · ${source}`);
  return parts;
}

function sections(summary: RunSummary): Node[] {
  const result: Node[] = [];
  const calls = modelCallsList(summary);
  if (calls) result.push(section('Model calls', 'calls', calls));
  const streams = summary.streams.filter((stream) => stream.text !== '');
  if (streams.length > 0) {
    const last = streams[streams.length - 1]!;
    result.push(
      section('Model output', 'stream', element('pre', { class: 'stream', id: 'stream-text', tabindex: '0' }, last.text, summary.status === 'running' ? element('span', { class: 'cursor', 'aria-hidden': 'true' }, '▍') : null)),
    );
  }
  if (summary.attempts.length > 0) {
    result.push(
      section(
        'Reflection attempts',
        'attempts',
        element(
          'div',
          { class: 'attempts', id: 'attempts' },
          ...summary.attempts.map((attempt) =>
            element(
              'article',
              { class: `attempt ${attempt.valid ? 'valid' : 'invalid'}`, 'aria-label': `Attempt ${attempt.iteration}` },
              element('h4', {}, `Attempt ${attempt.iteration}`),
              element('p', {}, element('span', { class: `badge ${attempt.valid ? 'ok' : 'bad'}` }, attempt.valid === undefined ? 'no verdict' : attempt.valid ? 'valid' : 'invalid'), ` score ${attempt.score === undefined ? '–' : attempt.score.toFixed(2)}`),
              attempt.errors.length > 0 ? element('ul', { class: 'errors' }, ...attempt.errors.map((error) => element('li', {}, error))) : element('p', { class: 'muted' }, 'no errors'),
            ),
          ),
        ),
      ),
    );
  }
  if (summary.steps.length > 0) {
    result.push(
      section(
        'Reasoning steps',
        'steps',
        element(
          'ol',
          { class: 'steps', id: 'react-steps' },
          ...summary.steps.map((step) =>
            element(
              'li',
              {},
              step.thought ? element('p', {}, element('b', {}, 'Thought: '), step.thought) : null,
              step.tool ? element('p', {}, element('b', {}, 'Tool: '), element('code', {}, step.tool), step.autonomous ? ' (ran automatically)' : '') : null,
              step.args !== undefined ? element('p', {}, element('b', {}, 'Arguments: '), element('code', {}, formatJson(step.args, 2000))) : null,
              step.observation !== undefined ? element('p', {}, element('b', {}, 'Observation: '), element('code', {}, formatJson(step.observation, 2000))) : null,
              step.answer !== undefined ? element('p', {}, element('b', {}, 'Answer: '), formatJson(step.answer, 4000)) : null,
            ),
          ),
        ),
      ),
    );
  }
  if (summary.errors.length > 0) {
    result.push(section('Errors', 'errors', element('ul', { class: 'errors', id: 'run-errors' }, ...summary.errors.map((error) => element('li', {}, element('code', {}, error.code), error.node ? ` at ${error.node}: ` : ': ', error.message)))));
  }
  if (summary.final_state) {
    result.push(section('Final state', 'state', element('pre', { class: 'state', id: 'final-state', tabindex: '0' }, formatJson(summary.final_state))));
  }
  if (summary.logs.length > 0) {
    result.push(element('details', { class: 'logs' }, element('summary', {}, `Log (${summary.logs.length})`), element('pre', {}, summary.logs.join('\n'))));
  }
  return result;
}

function section(title: string, id: string, ...content: Node[]): HTMLElement {
  return element('section', { class: `run-section section-${id}`, 'aria-labelledby': `heading-${id}` }, element('h3', { id: `heading-${id}` }, title), ...content);
}
