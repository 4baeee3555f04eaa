/**
 * A run as one self-contained HTML file: the outcome, the figures, the timeline, each step's
 * state, the errors, the final state and every event, with its styles inline, so it opens offline
 * in any browser with no server. Everything is rendered into the HTML itself (it reads the same
 * with scripts off); every value is escaped (model output and agent text are untrusted).
 *
 * The record and events are also embedded as JSON (report-data.ts), so the report is a lossless
 * export the studio imports back, and one small inline script offers them as NDJSON. A Content
 * Security Policy allows that script alone (by its hash), inline styles and nothing else: no
 * request can leave the page, and no script smuggled into the data could run.
 */
import type { AgentEvent } from '../src/core/events.js';
import type { RunRecord } from '../src/core/trace-store.js';
import { runFigures } from './run-figures.js';
import { summarize } from './run-summary.js';
import { buildTimeline, type TimelineItem } from './timeline.js';
import { reportDataBlock, REPORT_DATA_ID } from './report-data.js';
import { sha256 } from '../src/util/sha256.js';
import type { StudioSnapshot } from './report-views.js';

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;color:#1a1f29;max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.4em}code,pre{font:13px ui-monospace,Menlo,Consolas,monospace}
pre{background:#f6f8fb;border:1px solid #c9d1dc;border-radius:6px;padding:8px;white-space:pre-wrap;word-break:break-word}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #c9d1dc;padding:3px 6px;text-align:left;vertical-align:top}
.bar{height:10px;background:#1d6fb8;border-radius:3px;min-width:2px}.track{background:#eef2f7;position:relative;height:10px}
.failed{color:#a3161b}.completed{color:#146c2e}summary{cursor:pointer}button{font:inherit;padding:4px 10px}
:focus-visible{outline:3px solid #1d6fb8;outline-offset:2px}.wide{overflow-x:auto}`;

/** The report is one column: the studio's panels and scroll boxes are laid out for a page that is not. */
const STUDIO_OVERRIDES = `body{background:#fff}.studio-views .run-section{margin:1em 0}.studio-views pre{max-height:none}`;

/**
 * The report's only script: reads the embedded run data (JSON.parse, no eval) and offers the
 * events as an NDJSON file. Written as plain ES2017 so any browser runs it.
 */
const SCRIPT = `(function () {
  var block = document.getElementById('${REPORT_DATA_ID}');
  var data = JSON.parse(block.textContent);
  var button = document.getElementById('save-ndjson');
  button.hidden = false;
  button.addEventListener('click', function () {
    var text = data.events.map(function (event) { return JSON.stringify(event); }).join('\\n') + '\\n';
    var link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
    link.download = 'run-' + data.record.run_id + '.ndjson';
    document.body.appendChild(link);
    link.click();
    link.remove();
  });
  document.documentElement.setAttribute('data-report', 'ready');
  document.documentElement.setAttribute('data-events', String(data.events.length));
})();`;

/** The policy: no network at all, inline styles, and the one script above. */
const POLICY = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${base64(sha256(new TextEncoder().encode(SCRIPT)))}'; base-uri 'none'; form-action 'none'`;

/**
 * The report's HTML. `studio` is the studio's own views of the run (report-views.tsx: the graph,
 * the run sections with the action views, every model call) with their stylesheet; the page
 * writes it. Without it (no document, as in Node) the errors and final state are written here.
 */
export function runReport(record: RunRecord, events: readonly AgentEvent[], studio?: StudioSnapshot): string {
  const summary = summarize([...events]);
  const figures = runFigures(events);
  const timeline = buildTimeline(events);
  const rows = timeline.items
    .map((item) => {
      const left = (item.start / timeline.total) * 100;
      const width = (((item.end ?? timeline.total) - item.start) / timeline.total) * 100;
      return `<tr><td>${escapeHtml(item.kind)}</td><td>${escapeHtml(item.label)}</td><td><div class="track"><div class="bar" style="margin-left:${left.toFixed(2)}%;width:${width.toFixed(2)}%"></div></div></td><td>${item.end === undefined ? 'running' : `${Math.round(item.end - item.start)} ms`}</td><td>${item.tokens?.total ?? ''}</td><td>${item.retries || ''}</td></tr>`;
    })
    .join('\n');
  const errors = summary.errors
    .map(
      (error) =>
        `<li><code>${escapeHtml(error.code)}</code>${error.node ? ` in ${escapeHtml(error.node)}` : ''}: ${escapeHtml(error.message)}</li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${POLICY}">
<title>Run ${escapeHtml(record.run_id)} of ${escapeHtml(record.agent)} · tea-edge report</title>
<style>${STYLE}</style>${studio ? `<style>${studio.css}</style><style>${STUDIO_OVERRIDES}</style>` : ''}</head><body>
<h1>${escapeHtml(record.agent)}: <span class="${escapeHtml(record.status)}">${escapeHtml(record.status)}</span></h1>
<p>Run <code>${escapeHtml(record.run_id)}</code> · started ${escapeHtml(record.created_at)}${record.stop_reason ? ` · stop reason <code>${escapeHtml(record.stop_reason)}</code>` : ''}</p>
<h2>Figures</h2>
<table><tbody>
<tr><th scope="row">Time</th><td>${figures.duration_ms} ms</td></tr>
<tr><th scope="row">Tokens</th><td>${figures.tokens}</td></tr>
<tr><th scope="row">Model calls</th><td>${figures.model_calls}${figures.failed_calls ? ` (${figures.failed_calls} failed)` : ''}</td></tr>
<tr><th scope="row">Models</th><td>${escapeHtml(figures.models.join(', ') || '—')}</td></tr>
<tr><th scope="row">Steps (node runs)</th><td>${figures.nodes}</td></tr>
<tr><th scope="row">Events</th><td>${events.length}</td></tr>
</tbody></table>
${studio ? `<div class="studio-views" id="studio-views">${studio.html}</div>` : ''}
<h2>Timeline</h2>
<div class="wide" role="region" aria-label="Timeline table" tabindex="0"><table><thead><tr><th scope="col">Kind</th><th scope="col">Item</th><th scope="col">When</th><th scope="col">Duration</th><th scope="col">Tokens</th><th scope="col">Retries</th></tr></thead><tbody>
${rows}
</tbody></table></div>
<h2>Steps</h2>
${steps(timeline.items)}
${
  studio
    ? ''
    : `${errors ? `<h2>Errors</h2><ul class="failed">${errors}</ul>` : ''}
<h2>Final state</h2>
<pre>${escapeHtml(JSON.stringify(summary.final_state ?? null, null, 2))}</pre>`
}
<h2>Events</h2>
<p><button type="button" id="save-ndjson" hidden>Save the events as NDJSON</button></p>
<details><summary>Every event (${events.length})</summary><pre>${escapeHtml(events.map((event) => JSON.stringify(event)).join('\n'))}</pre></details>
<p><small>Written by the tea-edge studio on ${escapeHtml(new Date().toISOString())}.</small></p>
${reportDataBlock({ record, events: [...events] })}
<script>${SCRIPT}</script>
</body></html>
`;
}

const STEPS_SHOWN = 200;

/** Each completed node run (the first 200): its update and the state after it. */
function steps(items: readonly TimelineItem[]): string {
  const done = items.filter((item) => (item.kind === 'node' || item.kind === 'lua') && item.end !== undefined);
  if (done.length === 0) return '<p>No node completed.</p>';
  // Each step carries a whole state: past a few hundred the file grows with steps × state size.
  const more = done.length - STEPS_SHOWN;
  return `<ol class="steps">${done
    .slice(0, STEPS_SHOWN)
    .map(
      (item) =>
        `<li><details><summary>${escapeHtml(item.label)} · ${Math.round(item.end! - item.start)} ms${item.status === 'failed' ? ' · <span class="failed">failed</span>' : ''}</summary>
<p>Update</p><pre>${escapeHtml(JSON.stringify(item.update ?? {}, null, 2))}</pre>
<p>State after</p><pre>${escapeHtml(JSON.stringify(item.after ?? {}, null, 2))}</pre></details></li>`,
    )
    .join('\n')}</ol>${more > 0 ? `<p>${more} more steps: see every event below.</p>` : ''}`;
}

function base64(words: Uint32Array): string {
  let binary = '';
  for (const word of words)
    binary += String.fromCharCode(word >>> 24, (word >>> 16) & 255, (word >>> 8) & 255, word & 255);
  return btoa(binary);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
