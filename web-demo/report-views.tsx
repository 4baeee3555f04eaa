/**
 * The studio's views of a run, as static HTML for the offline report (report.ts): the graph with
 * the run's marks (graph-view.ts, drawn by the run view), the run sections with the per-action views (run-sections.tsx,
 * action-views.tsx) and every model call's detail (model-call-detail.tsx). They are rendered by
 * the studio's own components into a detached element, so the report shows what the studio shows
 * and cannot drift from it, and carried with the studio's own stylesheet. Needs a document (the
 * report is written in the page); the HTML serialiser escapes every text and attribute.
 */
import { render } from 'preact';
import { ActionViews, findActions } from './action-views.js';
import { ModelCallDetail } from './model-call-detail.js';
import { RunSections, Section } from './run-sections.js';
import type { RunSummary } from './run-summary.js';
import { buildTimeline, type TimelineItem } from './timeline.js';
import { duration } from './timeline-view.js';

/** The studio views' HTML and the stylesheet they need. */
export interface StudioSnapshot {
  html: string;
  css: string;
}

/** Model calls shown in full in a report: past this many, the rest are counted (each embeds its messages). */
export const REPORT_CALLS_SHOWN = 100;

/**
 * `graph` is the run's agent graph drawn with its marks by the run view (run-view.tsx `drawGraph`:
 * the page's own drawing, passed in so this chunk does not split the first load's modules).
 */
export function studioSnapshot(summary: RunSummary, graph: { svg: SVGElement; kinds: ReadonlyMap<string, string> } | undefined): StudioSnapshot {
  const box = document.createElement('div');
  const kinds = graph?.kinds ?? new Map<string, string>();
  const calls = buildTimeline(summary.events, kinds).items.filter((item) => item.kind === 'model');
  const found = findActions(summary.events);
  render(
    <>
      <Section title="Graph" id="report-graph">
        <div class="graph-box" id="graph">
          {graph ? null : <p class="muted">The agent of this run is not known here, so its graph is not drawn.</p>}
        </div>
      </Section>
      <RunSections summary={summary} extra={<ActionViews summary={summary} found={found} />} hideAttempts={found.reflection.length > 0} />
      {calls.length > 0 ? <ModelCallList calls={calls} /> : null}
    </>,
    box,
  );
  if (graph) box.querySelector('#graph')!.append(graph.svg);
  const html = box.innerHTML;
  render(null, box);
  return { html, css: studioCss() };
}

/** Every model call of the run, each with the studio's detail view, folded under its label. */
function ModelCallList({ calls }: { calls: readonly TimelineItem[] }) {
  const shown = calls.slice(0, REPORT_CALLS_SHOWN);
  return (
    <Section title={`Model calls (${calls.length})`} id="report-calls">
      <ol class="report-calls" id="report-calls">
        {shown.map((item, index) => (
          <li key={item.id} class={`report-call ${item.status}`}>
            <details open={calls.length <= 5}>
              <summary>{[`Call ${index + 1}`, item.label, item.node ? `in ${item.node}` : '', item.status === 'ok' ? '' : item.status, item.tokens ? `${item.tokens.total} tokens` : ''].filter(Boolean).join(' · ')}</summary>
              <ModelCallDetail item={item} duration={duration} />
            </details>
          </li>
        ))}
      </ol>
      {calls.length > shown.length ? <p class="note">{`${calls.length - shown.length} more calls: see every event below.`}</p> : null}
    </Section>
  );
}

/** The studio's stylesheet as text, with no `<` (so it cannot end the report's style element). */
function studioCss(): string {
  const rules: string[] = [];
  for (const sheet of document.styleSheets) {
    if (!sheet.href?.endsWith('/styles.css')) continue;
    for (const rule of sheet.cssRules) rules.push(rule.cssText);
  }
  return rules.join('\n').replace(/</g, '\\3c ');
}
