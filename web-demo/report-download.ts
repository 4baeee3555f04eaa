/**
 * "Save as HTML report" from the run view, and Report in the history: the run written as one
 * self-contained HTML file (report.ts) with the studio's own views of it (report-views.tsx), and
 * downloaded. Its own lazy chunk: nothing of it loads until the button is used.
 */
import type { AgentEvent } from '../src/core/events.js';
import type { RunRecord } from '../src/core/trace-store.js';
import { download } from './history-panel.js';
import { runReport } from './report.js';
import { studioSnapshot } from './report-views.js';
import { recordFromEvents } from './run-record.js';
import { summarize } from './run-summary.js';

/** Downloads the report of a run given its events (and its agent's graph drawn with its marks, when known); returns the file name. */
export function saveRunReport(
  events: AgentEvent[],
  graph: Parameters<typeof studioSnapshot>[1],
  record: RunRecord = recordFromEvents(events),
): string {
  const name = `run-${record.run_id}.html`;
  download(
    new Blob([runReport(record, events, studioSnapshot(summarize(events), graph))], { type: 'text/html' }),
    name,
  );
  return name;
}
