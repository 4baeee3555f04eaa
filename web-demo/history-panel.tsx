/**
 * Run history: the runs newest first from a history source (this tab's IndexedDB, or a tea-edge
 * server's GET /runs), searchable (agent, run id, error code) and filterable by status, each with
 * Open (the same run view rebuilt from its stored events), Export (NDJSON), Report (one offline
 * HTML file) and, where the source allows, Delete, which asks first with Cancel focused. Import
 * reads an NDJSON file; what is wrong with it is shown on screen. The tab keeps at most the
 * number of runs set here (oldest deleted first).
 */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { AgentEvent } from '../src/core/events.js';
import type { RunRecord } from '../src/core/trace-store.js';
import { upgradeEvent } from '../src/events/upgrade-event.js';
import { toNdjson } from './ndjson.js';
import { parseRunFile } from './run-file.js';
import { recordFromEvents } from './run-record.js';
import { parentOf, sourceOf } from './run-sources.js';
import { CompareView, type ComparedRun } from './compare-view.js';
import { compareIdsOf, showCompareInAddress } from './compare-link.js';

/** Where runs are listed from. */
export interface HistorySource {
  /** Shown above the list ("this tab", "server http://…"). */
  label: string;
  list(): Promise<RunRecord[]>;
  readEvents(runId: string): Promise<AgentEvent[]>;
  /** Absent: the source cannot delete (a server has no delete route). */
  remove?(runId: string): Promise<void>;
  /** Absent: imports are opened but not kept. */
  store?(record: RunRecord, events: AgentEvent[]): Promise<void>;
}

export interface HistoryPanelOptions {
  root: HTMLElement;
  open(runId: string, events: AgentEvent[], label: string, record?: RunRecord): void;
  announce(message: string): void;
  /** Writes a self-contained HTML report of a run (lazy module). */
  report?(record: RunRecord, events: AgentEvent[]): void;
  storage?: Storage | undefined;
}

export interface HistoryPanel {
  refresh(): Promise<void>;
  setSource(source: HistorySource | undefined): void;
  /** Every run listed (for Compare). */
  runs(): RunRecord[];
}

const LIMIT_KEY = 'tea-edge.history-limit';
export const DEFAULT_HISTORY_LIMIT = 100;

/** Builds the panel inside `root`. */
export function createHistoryPanel(options: HistoryPanelOptions): HistoryPanel {
  let source: HistorySource | undefined;
  let runs: RunRecord[] = [];
  let failure: string | undefined;
  let importError: string | undefined;
  let loaded = false;
  const limitOf = () => {
    const saved = Number(options.storage?.getItem(LIMIT_KEY));
    return Number.isInteger(saved) && saved > 0 ? saved : DEFAULT_HISTORY_LIMIT;
  };

  const draw = () =>
    render(
      <History
        source={source}
        storage={options.storage}
        runs={runs}
        loaded={loaded}
        failure={failure}
        importError={importError}
        limit={limitOf()}
        onLimit={(limit) => {
          options.storage?.setItem(LIMIT_KEY, String(limit));
          void refresh();
        }}
        onRefresh={() => void refresh()}
        onOpen={(run, label) => void openRun(run, label)}
        onExport={(run) => void exportRun(run)}
        onReport={options.report ? (run) => void reportRun(run) : undefined}
        onDelete={source?.remove ? (run, label) => void deleteRun(run, label) : undefined}
        onImport={(file) => void importFile(file)}
        loadEvents={eventsOf}
      />,
      options.root,
    );

  const refresh = async () => {
    if (!source) {
      failure = 'IndexedDB is not available in this browser window, so runs are not kept.';
      runs = [];
      loaded = true;
      return draw();
    }
    // The list answers late (a slow server): when the source was switched meanwhile, the answer
    // is another source's runs and is dropped, never drawn under the new source's name.
    const reading = source;
    let listed: RunRecord[];
    try {
      listed = await reading.list();
      if (reading !== source) return;
      failure = undefined;
      // The size setting: the oldest runs beyond it are deleted (where the source can delete).
      const limit = limitOf();
      if (reading.remove && listed.length > limit) {
        for (const old of listed.slice(limit)) await reading.remove(old.run_id).catch(() => undefined);
        listed = listed.slice(0, limit);
      }
    } catch (error) {
      if (reading !== source) return;
      failure = `Could not read the run history: ${(error as Error).message}`;
      listed = [];
    }
    if (reading !== source) return;
    runs = listed;
    loaded = true;
    draw();
  };

  const eventsOf = async (run: RunRecord) => (await source!.readEvents(run.run_id)).map(upgradeEvent);
  const openRun = async (run: RunRecord, label: string) => {
    // Runs stored by an older version may use older field names: upgraded once, here.
    options.open(run.run_id, await eventsOf(run), `from history: ${label}`, run);
  };
  const exportRun = async (run: RunRecord) => {
    const events = await source!.readEvents(run.run_id);
    download(new Blob([toNdjson(events)], { type: 'application/x-ndjson' }), `run-${run.run_id}.ndjson`);
    options.announce(`Exported ${events.length} events.`);
  };
  const reportRun = async (run: RunRecord) => options.report?.(run, await eventsOf(run));
  const deleteRun = async (run: RunRecord, label: string) => {
    await source!.remove!(run.run_id);
    options.announce(`Deleted ${label}.`);
    await refresh();
  };
  const importFile = async (file: File) => {
    const parsed = parseRunFile(await file.text());
    if (!parsed.ok) {
      importError = `Import of ${file.name} failed: ${parsed.error}`;
      options.announce(importError);
      return draw();
    }
    importError = undefined;
    const record = recordFromEvents(parsed.events);
    // Reading the file and drawing the run are tasks of their own (a long run's two halves).
    await new Promise((resolve) => setTimeout(resolve, 0));
    // The imported run is shown first, then the list gains its row (one visible order, the same
    // on every machine: a reader who sees the row also sees the run).
    options.open(record.run_id, parsed.events, `imported from ${file.name}`, record);
    if (source?.store) {
      // Stored after the run is drawn: copying a long run into IndexedDB is a task of its own,
      // not part of the one that shows it.
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      try {
        await source.store(record, parsed.events);
        await refresh();
      } catch (error) {
        importError = `Import could not be stored: ${(error as Error).message}`;
        options.announce(importError);
        draw();
      }
    } else draw();
  };

  draw();
  return {
    refresh,
    setSource(next) {
      // The same source again (server mode starting in tab mode sets the tab's): keep the rows
      // shown and read again, instead of blanking the list for a moment.
      if (next === source) return void refresh();
      source = next;
      loaded = false;
      runs = [];
      draw();
      void refresh();
    },
    runs: () => runs,
  };
}

/** Downloads a blob as a file. */
export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

interface HistoryProps {
  source: HistorySource | undefined;
  storage: Storage | undefined;
  runs: RunRecord[];
  loaded: boolean;
  failure: string | undefined;
  importError: string | undefined;
  limit: number;
  onLimit(limit: number): void;
  onRefresh(): void;
  onOpen(run: RunRecord, label: string): void;
  onExport(run: RunRecord): void;
  onReport: ((run: RunRecord) => void) | undefined;
  onDelete: ((run: RunRecord, label: string) => void) | undefined;
  onImport(file: File): void;
  loadEvents(run: RunRecord): Promise<AgentEvent[]>;
}

const STATUSES = ['completed', 'failed', 'interrupted', 'cancelled', 'running'];

function History(props: HistoryProps) {
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState('');
  const [confirming, setConfirming] = useState<{ run: RunRecord; label: string } | undefined>();
  // Compare: the two runs picked (the newest pick replaces the older), then their events.
  const [picked, setPicked] = useState<RunRecord[]>([]);
  const [compared, setCompared] = useState<[ComparedRun, ComparedRun] | undefined>();
  const togglePick = (run: RunRecord) => {
    closeCompare();
    setPicked((current) => (current.some((other) => other.run_id === run.run_id) ? current.filter((other) => other.run_id !== run.run_id) : [...current, run].slice(-2)));
  };
  const compare = async (pair = picked as [RunRecord, RunRecord]) => {
    const [a, b] = pair;
    const [eventsA, eventsB] = await Promise.all([props.loadEvents(a), props.loadEvents(b)]);
    setCompared([
      { record: a, events: eventsA, source: sourceOf(props.storage, a.run_id) },
      { record: b, events: eventsB, source: sourceOf(props.storage, b.run_id) },
    ]);
    showCompareInAddress([a.run_id, b.run_id]);
  };
  const closeCompare = () => {
    setCompared(undefined);
    showCompareInAddress(undefined);
  };
  // Opened with #compare=A,B (a bookmarked comparison): compared once both runs are listed.
  const [linked, setLinked] = useState(() => compareIdsOf(location.hash));
  useEffect(() => {
    if (!linked || !props.loaded) return;
    const pair = linked.map((id) => props.runs.find((run) => run.run_id === id));
    if (pair.every((run) => run !== undefined)) {
      setLinked(undefined);
      setPicked(pair as RunRecord[]);
      void compare(pair as [RunRecord, RunRecord]);
    }
    // Not listed (yet): kept, since the server's history may be the next source shown.
  }, [linked, props.loaded, props.runs]);
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = props.runs.filter((run) => (status === '' || run.status === status) && words.every((word) => haystack(run).includes(word)));
  return (
    <>
      <p class="note" id="history-source">{props.source ? `Runs of ${props.source.label}.` : ''}</p>
      <div class="row">
        <button type="button" id="history-refresh" onClick={props.onRefresh}>Refresh</button>
        <label for="import-file" class="button">Import NDJSON or report…</label>
        <input
          type="file"
          id="import-file"
          accept=".ndjson,.jsonl,.html,application/x-ndjson,application/json,text/plain,text/html"
          class="visually-hidden"
          onChange={(event) => {
            const input = event.currentTarget;
            const file = input.files?.[0];
            input.value = '';
            if (file) props.onImport(file);
          }}
        />
      </div>
      <p class="bad-text" id="import-error" role="alert">{props.importError ?? ''}</p>
      <div class="row history-filters">
        <label class="inline">
          Search
          <input type="search" id="history-search" value={query} placeholder="agent, run id, error code" onInput={(event) => setQuery(event.currentTarget.value)} />
        </label>
        <label class="inline">
          Status
          <select id="history-status" value={status} onChange={(event) => setStatus(event.currentTarget.value)}>
            <option value="">any</option>
            {STATUSES.map((value) => <option key={value} value={value}>{value}</option>)}
          </select>
        </label>
        {props.source?.remove ? (
          <label class="inline">
            Keep at most
            <input type="number" id="history-limit" min={1} max={1000} value={props.limit} onChange={(event) => {
              const value = Number(event.currentTarget.value);
              if (Number.isInteger(value) && value > 0) props.onLimit(value);
            }} />
            runs
          </label>
        ) : null}
      </div>
      <ul class="history-list" id="history-list" aria-label="Past runs">
        {props.failure ? <li class="bad-text">{props.failure}</li> : null}
        {!props.failure && props.loaded && props.runs.length === 0 ? <li class="muted">No runs yet.</li> : null}
        {!props.failure && props.runs.length > 0 && shown.length === 0 ? <li class="muted">No run matches.</li> : null}
        {shown.map((run) => (
          <Row key={run.run_id} run={run} {...props} picked={picked.some((other) => other.run_id === run.run_id)} onPick={() => togglePick(run)} onAskDelete={props.onDelete ? (label) => setConfirming({ run, label }) : undefined} />
        ))}
      </ul>
      {picked.length > 0 ? (
        <div class="row compare-bar">
          <span class="note">{picked.length === 2 ? 'Two runs picked.' : 'Pick one more run to compare.'}</span>
          <button type="button" id="compare-button" class="primary" disabled={picked.length !== 2} onClick={() => void compare()}>Compare</button>
          <button type="button" id="compare-clear" onClick={() => { setPicked([]); closeCompare(); }}>Clear</button>
        </div>
      ) : null}
      {compared ? <CompareView a={compared[0]} b={compared[1]} onClose={closeCompare} /> : null}
      {confirming && props.onDelete ? (
        <ConfirmDelete
          label={confirming.label}
          onCancel={() => setConfirming(undefined)}
          onConfirm={() => {
            setConfirming(undefined);
            props.onDelete!(confirming.run, confirming.label);
          }}
        />
      ) : null}
    </>
  );
}

/** How long the run took, from its record's first and last write (absent while it runs). */
function took(run: RunRecord): string {
  const ms = Date.parse(run.updated_at) - Date.parse(run.created_at);
  if (run.status === 'running' || !Number.isFinite(ms) || ms < 0) return '';
  return ` · ${ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`}`;
}

/** What the run used, from its record: tokens (model calls when none were counted) and the models. */
function used(run: RunRecord): string {
  const parts: string[] = [];
  if (run.usage) parts.push(run.usage.tokens > 0 || run.usage.llm_calls === 0 ? `${run.usage.tokens.toLocaleString('en')} tok` : `${run.usage.llm_calls} call${run.usage.llm_calls === 1 ? '' : 's'}`);
  if (run.models && run.models.length > 0) parts.push(run.models.join(', '));
  return parts.map((part) => ` · ${part}`).join('');
}

function haystack(run: RunRecord): string {
  return [run.agent, run.run_id, run.status, run.stop_reason ?? '', run.error?.code ?? '', run.error?.node ?? '', ...(run.models ?? [])].join(' ').toLowerCase();
}

function Row({ run, onOpen, onExport, onReport, onAskDelete, storage, picked, onPick }: HistoryProps & { run: RunRecord; picked: boolean; onPick(): void; onAskDelete: ((label: string) => void) | undefined }) {
  const when = new Date(run.created_at);
  const label = `${run.agent} · ${Number.isNaN(when.getTime()) ? run.created_at : when.toLocaleString()}`;
  const parent = run.parent_run_id ?? parentOf(storage, run.run_id);
  return (
    <li class="history-row" data-run-id={run.run_id}>
      <span class={`badge status-${run.status}`}>{run.status}</span>
      <span class="history-label">
        {label}
        {took(run)}
        {used(run)}
        {/* The status is the badge: the stop reason only when it says more (a budget, an interrupt). */}
        {run.stop_reason && run.stop_reason !== run.status && !(run.status === 'failed' && run.stop_reason === 'error') ? ` · ${run.stop_reason}` : ''}
        {run.error ? <span class="bad-text history-error">{` · ${run.error.code}${run.error.node ? ` in ${run.error.node}` : ''}`}</span> : ''}
        {parent ? <span class="muted history-parent">{` · from run ${parent.slice(0, 8)}`}</span> : ''}
      </span>
      <span class="history-actions">
        <button type="button" class="open-run" aria-label={`Open run ${label}`} onClick={() => onOpen(run, label)}>Open</button>
        <button type="button" class="export-run" aria-label={`Export run ${label} as NDJSON`} onClick={() => onExport(run)}>Export</button>
        <button type="button" class="pick-run" aria-pressed={picked} aria-label={`Compare run ${label}`} onClick={onPick}>Compare</button>
        {onReport ? <button type="button" class="report-run" aria-label={`Save run ${label} as an HTML report`} onClick={() => onReport(run)}>Report</button> : null}
        {onAskDelete ? <button type="button" class="delete-run danger" aria-label={`Delete run ${label}`} onClick={() => onAskDelete(label)}>Delete</button> : null}
      </span>
    </li>
  );
}

/** Asks before deleting; opens with Cancel (the safe choice) focused; Escape cancels. */
function ConfirmDelete({ label, onCancel, onConfirm }: { label: string; onCancel(): void; onConfirm(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
    cancel.current?.focus();
  }, []);
  return (
    <dialog ref={dialog} id="delete-dialog" aria-labelledby="delete-title" onCancel={(event) => { event.preventDefault(); onCancel(); }}>
      <h2 id="delete-title">Delete this run?</h2>
      <p>{`${label} and its events will be removed from this browser. This cannot be undone.`}</p>
      <div class="row">
        <button type="button" id="delete-cancel" ref={cancel} onClick={onCancel}>Cancel</button>
        <button type="button" id="delete-confirm" class="danger" onClick={onConfirm}>Delete</button>
      </div>
    </dialog>
  );
}
