/**
 * Run history from IndexedDB (through the IndexedDB adapter): the runs newest first, each with
 * Open (the same run view rebuilt from its stored events), Export (NDJSON download) and Delete;
 * and Import of an NDJSON file, stored like any other run and opened.
 */
import type { AgentEvent } from '../src/events/event.js';
import type { RunRecord, TraceStore } from '../src/storage/trace-store.js';
import { upgradeEvent } from '../src/events/upgrade-event.js';

type RunErrorCode = NonNullable<RunRecord['error']>['code'];
import { element, replaceChildren } from './dom.js';
import { parseNdjson, toNdjson } from './ndjson.js';

export interface HistoryPanelOptions {
  root: HTMLElement;
  traceStore: TraceStore | undefined;
  open(runId: string, events: AgentEvent[], label: string): void;
  announce(message: string): void;
}

export interface HistoryPanel {
  refresh(): Promise<void>;
}

/** Builds the panel inside `root`. */
export function createHistoryPanel(options: HistoryPanelOptions): HistoryPanel {
  const list = element('ul', { class: 'history-list', id: 'history-list', 'aria-label': 'Past runs' });
  const fileInput = element('input', { type: 'file', id: 'import-file', accept: '.ndjson,.jsonl,application/x-ndjson,application/json,text/plain', class: 'visually-hidden' });
  const importLabel = element('label', { for: 'import-file', class: 'button' }, 'Import NDJSON…');
  const refreshButton = element('button', { type: 'button', id: 'history-refresh' }, 'Refresh');
  replaceChildren(options.root, element('div', { class: 'row' }, refreshButton, importLabel, fileInput), list);
  const store = options.traceStore;

  const refresh = async () => {
    if (!store) {
      replaceChildren(list, element('li', { class: 'muted' }, 'IndexedDB is not available in this browser window, so runs are not kept.'));
      return;
    }
    let runs: RunRecord[];
    try {
      runs = (await store.listRuns({ limit: 100 })).runs;
    } catch (error) {
      replaceChildren(list, element('li', { class: 'bad-text' }, `Could not read the run history: ${(error as Error).message}`));
      return;
    }
    if (runs.length === 0) {
      replaceChildren(list, element('li', { class: 'muted' }, 'No runs yet.'));
      return;
    }
    replaceChildren(list, ...runs.map((run) => row(run)));
  };

  const row = (run: RunRecord): HTMLElement => {
    const when = new Date(run.created_at);
    const label = `${run.agent} · ${Number.isNaN(when.getTime()) ? run.created_at : when.toLocaleString()}`;
    return element(
      'li',
      { class: 'history-row', 'data-run-id': run.run_id },
      element('span', { class: `badge status-${run.status}` }, run.status),
      element('span', { class: 'history-label' }, label, run.stop_reason ? ` · ${run.stop_reason}` : '', run.error ? element('span', { class: 'bad-text history-error' }, ` · ${run.error.code}${run.error.node ? ` in ${run.error.node}` : ''}`) : ''),
      element(
        'span',
        { class: 'history-actions' },
        element('button', { type: 'button', class: 'open-run', 'aria-label': `Open run ${label}`, onclick: () => void openRun(run, label) }, 'Open'),
        element('button', { type: 'button', class: 'export-run', 'aria-label': `Export run ${label} as NDJSON`, onclick: () => void exportRun(run) }, 'Export'),
        element('button', { type: 'button', class: 'delete-run danger', 'aria-label': `Delete run ${label}`, onclick: () => void deleteRun(run, label) }, 'Delete'),
      ),
    );
  };

  const openRun = async (run: RunRecord, label: string) => {
    // Runs stored by an older version may use older field names: upgraded once, here.
    const events = (await store!.readEvents(run.run_id)).map(upgradeEvent);
    options.open(run.run_id, events, `from history: ${label}`);
  };
  const exportRun = async (run: RunRecord) => {
    const events = await store!.readEvents(run.run_id);
    const url = URL.createObjectURL(new Blob([toNdjson(events)], { type: 'application/x-ndjson' }));
    const link = element('a', { href: url, download: `run-${run.run_id}.ndjson` });
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    options.announce(`Exported ${events.length} events.`);
  };
  const deleteRun = async (run: RunRecord, label: string) => {
    await store!.deleteRun(run.run_id);
    options.announce(`Deleted ${label}.`);
    await refresh();
  };

  fileInput.addEventListener('change', async () => {
    const file = fileInput.files?.[0];
    fileInput.value = '';
    if (!file) return;
    const parsed = parseNdjson(await file.text());
    if (!parsed.ok) {
      options.announce(`Import failed: ${parsed.error}`);
      return;
    }
    const record = recordFromEvents(parsed.events);
    if (store) {
      try {
        await store.putRun(record);
        await store.appendEvents(record.run_id, parsed.events);
        await store.flush(record.run_id);
        await refresh();
      } catch (error) {
        options.announce(`Import could not be stored: ${(error as Error).message}`);
      }
    }
    options.open(record.run_id, parsed.events, `imported from ${file.name}`);
  });
  refreshButton.addEventListener('click', () => void refresh());
  return { refresh };
}

/** A run record rebuilt from a run's events (for imported runs). */
export function recordFromEvents(events: AgentEvent[]): RunRecord {
  const first = events[0]!;
  const last = events[events.length - 1]!;
  const done = [...events].reverse().find((event) => event.type === 'done');
  const agent = first.type === 'run_start' && typeof first.data.agent === 'string' ? first.data.agent : 'imported';
  const status = typeof done?.data.status === 'string' ? done.data.status : 'failed';
  const record: RunRecord = {
    run_id: first.run_id,
    agent,
    status: (['running', 'completed', 'failed', 'interrupted', 'cancelled'].includes(status) ? status : 'failed') as RunRecord['status'],
    created_at: first.ts,
    updated_at: last.ts,
    event_count: events.length,
  };
  if (typeof done?.data.stop_reason === 'string') record.stop_reason = done.data.stop_reason;
  const error: { code?: unknown; message?: unknown; node?: unknown } | undefined = done?.data.error;
  if (typeof error?.code === 'string' && typeof error.message === 'string') {
    record.error = { code: error.code as RunErrorCode, message: error.message, ...(typeof error.node === 'string' ? { node: error.node } : {}) };
  }
  return record;
}
