/**
 * A run file the studio imports: NDJSON (one event a line, as Export writes it) or an HTML report
 * (its embedded run data). Both give the events in order, upgraded to today's field names.
 */
import { upgradeEvent } from '../src/events/upgrade-event.js';
import { parseNdjson, type ParsedNdjson } from './ndjson.js';
import { isReport, readReportData } from './report-data.js';

export function parseRunFile(text: string): ParsedNdjson {
  if (!isReport(text)) return parseNdjson(text);
  const read = readReportData(text);
  if (!read.ok) return { ok: false, error: read.error };
  const events = read.data.events.map(upgradeEvent).sort((left, right) => left.seq - right.seq);
  if (events.length === 0) return { ok: false, error: 'no events in the report' };
  return { ok: true, events, run_id: events[0]!.run_id };
}
