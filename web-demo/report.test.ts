// The offline HTML report in Node: hostile strings in the events cannot end the embedded data
// block or add markup, the data reads back to the same events, and the Content Security Policy
// names the hash of the one inline script the report carries.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import type { RunRecord } from '../src/core/trace-store.js';
import { runReport } from './report.js';
import { escapeJsonForHtml, isReport, readReportData } from './report-data.js';

/** Strings that break naive embedding of JSON in a script element. */
export const HOSTILE = [
  '</script><script>window.__pwned = 1</script>',
  '</SCRIPT ><img src=x onerror="window.__pwned=2">',
  '<!--<script>window.__pwned = 3//',
  '<![CDATA[ ]]> & &amp; \u2028 line \u2029 para',
  '"quoted" \\ backslash \u0000 nul',
];

const record: RunRecord = {
  run_id: 'run-1',
  agent: 'hostile</script>',
  status: 'completed',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:01.000Z',
};
const ts = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const events: AgentEvent[] = [
  {
    type: 'run_start',
    run_id: 'run-1',
    seq: 1,
    ts: ts(0),
    data: { agent: 'hostile</script>', input: { text: HOSTILE[0] } },
  },
  { type: 'node_start', run_id: 'run-1', seq: 2, ts: ts(5), node: 'echo', data: {} },
  {
    type: 'node_end',
    run_id: 'run-1',
    seq: 3,
    ts: ts(20),
    node: 'echo',
    data: { update: { strings: HOSTILE }, duration_ms: 15 },
  },
  {
    type: 'done',
    run_id: 'run-1',
    seq: 4,
    ts: ts(21),
    data: { status: 'completed', stop_reason: 'completed', state: { text: HOSTILE[0], strings: HOSTILE } },
  },
] as AgentEvent[];

describe('HTML report', () => {
  const html = runReport(record, events);

  it('embeds the events so that they read back unchanged, whatever their strings hold', () => {
    expect(isReport(html)).toBe(true);
    const read = readReportData(html);
    expect(read.ok && read.data.events).toEqual(events);
    expect(read.ok && read.data.record).toEqual(record);
  });

  it('lets no string out of the data block: exactly two script elements, no injected markup', () => {
    expect(html.match(/<script/gi)).toHaveLength(2);
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(html).not.toMatch(/<img|<!--|<!\[CDATA/i);
    expect(escapeJsonForHtml(JSON.stringify('</script>\u2028'))).toBe('"\\u003c/script\\u003e\\u2028"');
  });

  it('shows each step and the final state, and allows its one inline script by hash only', async () => {
    expect(html).toContain('<h2>Steps</h2>');
    expect(html).toContain('echo · 15 ms');
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    // Hashed here with WebCrypto, independently of the report's own SHA-256.
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(script)));
    const hash = btoa(String.fromCharCode(...digest));
    const policy = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
    expect(policy).toContain(`script-src 'sha256-${hash}'`);
    expect(policy).toContain("default-src 'none'");
    expect(policy).not.toContain('unsafe-eval');
  });

  it('shows the first 200 steps and says how many more there are; the data keeps them all', () => {
    const many: AgentEvent[] = [events[0]!];
    for (let index = 0; index < 250; index++) {
      many.push({
        type: 'node_start',
        run_id: 'run-1',
        seq: many.length + 1,
        ts: ts(index * 2),
        node: 'loop',
        data: {},
      } as AgentEvent);
      many.push({
        type: 'node_end',
        run_id: 'run-1',
        seq: many.length + 1,
        ts: ts(index * 2 + 1),
        node: 'loop',
        data: { update: { i: index }, duration_ms: 1 },
      } as AgentEvent);
    }
    const long = runReport(record, many);
    expect(long.match(/<li><details>/g)).toHaveLength(200);
    expect(long).toContain('50 more steps');
    const read = readReportData(long);
    expect(read.ok && read.data.events).toHaveLength(many.length);
  });

  it('refuses HTML that is not a report, and a report whose data is damaged', () => {
    expect(readReportData('<html><body>hi</body></html>')).toMatchObject({ ok: false });
    expect(readReportData(html.replace('{"record"', '{"record" oops'))).toMatchObject({
      ok: false,
      error: expect.stringContaining('not JSON'),
    });
  });
});
