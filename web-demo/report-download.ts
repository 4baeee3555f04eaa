/**
 * "Save as HTML report" from the run view: the run on screen written as one self-contained HTML
 * file (report.ts) and downloaded. Its own lazy chunk: nothing of it loads until the button is used.
 */
import type { AgentEvent } from '../src/core/events.js';
import { download } from './history-panel.js';
import { runReport } from './report.js';
import { recordFromEvents } from './run-record.js';

/** Downloads the report of a run given its events; returns the file name. */
export function saveRunReport(events: AgentEvent[]): string {
  const record = recordFromEvents(events);
  const name = `run-${record.run_id}.html`;
  download(new Blob([runReport(record, events)], { type: 'text/html' }), name);
  return name;
}
