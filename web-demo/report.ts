/**
 * A run as one self-contained HTML file: the outcome, the figures, the timeline, the errors, the
 * final state and every event, with its styles inline and no script, so it opens offline in any
 * browser with no server. Every value is escaped (model output and agent text are untrusted).
 */
import type { AgentEvent } from '../src/events/event.js';
import type { RunRecord } from '../src/storage/trace-store.js';
import { runFigures } from './run-figures.js';
import { summarize } from './run-summary.js';
import { buildTimeline } from './timeline.js';

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;color:#1a1f29;max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.4em}code,pre{font:13px ui-monospace,Menlo,Consolas,monospace}
pre{background:#f6f8fb;border:1px solid #c9d1dc;border-radius:6px;padding:8px;white-space:pre-wrap;word-break:break-word}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #c9d1dc;padding:3px 6px;text-align:left;vertical-align:top}
.bar{height:10px;background:#1d6fb8;border-radius:3px;min-width:2px}.track{background:#eef2f7;position:relative;height:10px}
.failed{color:#a3161b}.completed{color:#146c2e}`;

export function runReport(record: RunRecord, events: readonly AgentEvent[]): string {
  const summary = summarize([...events]);
  const figures = runFigures(events);
  const timeline = buildTimeline(events);
  const rows = timeline.items
    .map((item) => {
      const left = (item.start / timeline.total) * 100;
      const width = (((item.end ?? timeline.total) - item.start) / timeline.total) * 100;
      return `<tr><td>${escape(item.kind)}</td><td>${escape(item.label)}</td><td><div class="track"><div class="bar" style="margin-left:${left.toFixed(2)}%;width:${width.toFixed(2)}%"></div></div></td><td>${item.end === undefined ? 'running' : `${Math.round(item.end - item.start)} ms`}</td><td>${item.tokens?.total ?? ''}</td><td>${item.retries || ''}</td></tr>`;
    })
    .join('\n');
  const errors = summary.errors.map((error) => `<li><code>${escape(error.code)}</code>${error.node ? ` in ${escape(error.node)}` : ''}: ${escape(error.message)}</li>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Run ${escape(record.run_id)} of ${escape(record.agent)} · tea-edge report</title>
<style>${STYLE}</style></head><body>
<h1>${escape(record.agent)}: <span class="${escape(record.status)}">${escape(record.status)}</span></h1>
<p>Run <code>${escape(record.run_id)}</code> · started ${escape(record.created_at)}${record.stop_reason ? ` · stop reason <code>${escape(record.stop_reason)}</code>` : ''}</p>
<h2>Figures</h2>
<table><tbody>
<tr><th scope="row">Time</th><td>${figures.duration_ms} ms</td></tr>
<tr><th scope="row">Tokens</th><td>${figures.tokens}</td></tr>
<tr><th scope="row">Model calls</th><td>${figures.model_calls}${figures.failed_calls ? ` (${figures.failed_calls} failed)` : ''}</td></tr>
<tr><th scope="row">Models</th><td>${escape(figures.models.join(', ') || '—')}</td></tr>
<tr><th scope="row">Node runs</th><td>${figures.nodes}</td></tr>
<tr><th scope="row">Events</th><td>${events.length}</td></tr>
</tbody></table>
<h2>Timeline</h2>
<table><thead><tr><th scope="col">Kind</th><th scope="col">Item</th><th scope="col">When</th><th scope="col">Duration</th><th scope="col">Tokens</th><th scope="col">Retries</th></tr></thead><tbody>
${rows}
</tbody></table>
${errors ? `<h2>Errors</h2><ul class="failed">${errors}</ul>` : ''}
<h2>Final state</h2>
<pre>${escape(JSON.stringify(summary.final_state ?? null, null, 2))}</pre>
<details><summary>Every event (${events.length})</summary><pre>${escape(events.map((event) => JSON.stringify(event)).join('\n'))}</pre></details>
<p><small>Written by the tea-edge studio on ${escape(new Date().toISOString())}.</small></p>
</body></html>
`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
