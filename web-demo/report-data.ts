/**
 * The run data inside an HTML report: the record and every event as JSON in a
 * `<script type="application/json">` block, so that the report is also a lossless export (the
 * studio imports it back like an NDJSON file).
 *
 * Model output and agent text are untrusted, so the JSON is written with every `<`, `>` and `&`
 * as a \u escape: no `</script>`, `<!--` or `<script` in the data can end the block or change how
 * the HTML parser reads it, and U+2028/U+2029 are escaped too so the text is also a valid script
 * literal. JSON.parse reads the escapes back to the same strings.
 */
import type { AgentEvent } from '../src/core/events.js';
import type { RunRecord } from '../src/core/trace-store.js';

export const REPORT_DATA_ID = 'tea-run-data';
const OPENING = `<script type="application/json" id="${REPORT_DATA_ID}">`;

export interface ReportData {
  record: RunRecord;
  events: AgentEvent[];
}

/** The data block, ready to be placed in the report's HTML. */
export function reportDataBlock(data: ReportData): string {
  return `${OPENING}${escapeJsonForHtml(JSON.stringify(data))}</script>`;
}

/** JSON text with nothing the HTML parser could read as markup. */
export function escapeJsonForHtml(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Whether a file's text is a tea-edge HTML report (rather than NDJSON). */
export function isReport(text: string): boolean {
  return text.includes(OPENING);
}

/**
 * The record and events of a report written by `reportDataBlock`. The block holds no `<`, so the
 * first `</script` after its opening is its end.
 */
export function readReportData(html: string): { ok: true; data: ReportData } | { ok: false; error: string } {
  const start = html.indexOf(OPENING);
  if (start < 0) return { ok: false, error: 'no run data in this HTML file (not a tea-edge report)' };
  const from = start + OPENING.length;
  const end = html.indexOf('</script', from);
  if (end < 0) return { ok: false, error: 'the run data block of this report is not closed' };
  let value: unknown;
  try {
    value = JSON.parse(html.slice(from, end));
  } catch {
    return { ok: false, error: 'the run data of this report is not JSON' };
  }
  const data = value as Partial<ReportData> | null;
  if (
    typeof data !== 'object' ||
    data === null ||
    !Array.isArray(data.events) ||
    typeof data.record !== 'object' ||
    data.record === null
  ) {
    return { ok: false, error: 'the run data of this report has no record and events' };
  }
  return { ok: true, data: data as ReportData };
}
