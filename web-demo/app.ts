/**
 * The tea-edge web demo: pick or write an agent, run it in a Web Worker against a model on this
 * machine (or the scripted demo model), watch it live, and find every run again in the history
 * kept in IndexedDB. The editor (CodeMirror) is loaded after the first paint, in its own chunk.
 */
import type { AgentErrorJson } from '../src/core/agent-error.js';
import type { AgentEvent } from '../src/core/events.js';
import type { RunRecord } from '../src/core/trace-store.js';
import type { AgentGraph } from './agent-graph.js';
import { EngineClient } from './engine-client.js';
import type { HistoryPanel, HistorySource } from './history-panel.js';
import type { RemoteBackend, ResumeUpdate } from './backend.js';
import { createModelPanel } from './model-panel.js';
import { createConfirmDialog } from './confirm-dialog.js';
import { DATABASE_NAME, type RunOutcome } from './protocol.js';
import { createRunView } from './run-view.js';
import { applyEvent, emptySummary, endRun, summarize, type RunSummary } from './run-summary.js';
import { outcomeSentence } from './run-outcome.js';
import { createAgentPanel } from './agent-panel.js';
import { rememberSource, sourceOf } from './run-sources.js';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** Starts the app in the page built from index.html. */
const TAB_TAGLINE = 'YAML agents running in this tab, traced in IndexedDB. Nothing is sent anywhere but the model server you choose.';

function start(): void {
  const storage = safeStorage('localStorage');
  const session = safeStorage('sessionStorage');
  let summary: RunSummary | undefined;
  let activeRunId: string | undefined;
  let activeSource = '';

  const announcer = byId('announcer');
  const announce = (message: string) => {
    announcer.textContent = message;
  };
  const runView = createRunView(byId('run-view'));
  // Where runs go: this tab's engine workers, or a server (server mode sets it).
  let remote: RemoteBackend | undefined;
  const onRunEvent = (runId: string, event: AgentEvent) => {
    if (runId !== activeRunId || !summary) return;
    applyEvent(summary, event);
    runView.show(summary);
    if (event.type === 'confirmation_request') openConfirmation();
  };
  const lastSeq = () => summary?.events.at(-1)?.seq ?? 0;
  // Agents run the other bundled examples as sub-runs (agent.* with {file: …}): filled when the
  // examples' chunk has loaded.
  const agentFiles: Record<string, string> = {};
  const client = new EngineClient({
    workerUrl: new URL('engine-worker.js', document.baseURI).href,
    luaWorkerUrl: new URL('engine-worker-lua.js', document.baseURI).href,
    onEvent: onRunEvent,
    onRestart: () => announce('The engine worker was restarted.'),
    agentFiles,
  });

  // The tab's model settings, the header badge and the search for a local model server.
  const modelPanel = createModelPanel({ storage, session, client, remote: () => remote !== undefined });

  // The agent: examples, the plain text area until the editor arrives, validation.
  const inputArea = byId<HTMLTextAreaElement>('run-input');
  // The graph shows the agent of the latest request: the editor's text, or a run opened from
  // history. Answers arrive out of order (the engine worker may still be starting), so an older
  // answer never replaces the graph a newer request asked for.
  let graphRequest = 0;
  const latestGraph = (text: string) => {
    const request = ++graphRequest;
    return client.validate(text).then((result) => ({ result, latest: request === graphRequest }));
  };
  const validations = new WeakMap<object, boolean>();
  const agentPanel = createAgentPanel({
    storage,
    validate: (text) =>
      latestGraph(text).then(({ result, latest }) => {
        validations.set(result, latest);
        return result;
      }),
    onValidated: (result) => {
      if (validations.get(result) === false) return;
      agentProblems = result.problems.length;
      updateRunButton();
      // A run opened from history keeps its graph until the editor's text changes (the editor
      // re-validating the same text, e.g. when it finishes loading, is not a change).
      if (graphPinnedTo !== undefined && editor.getText() === graphPinnedTo) return;
      graphPinnedTo = undefined;
      runView.setGraph(result.graph);
    },
  });
  void agentPanel.examples.then((examples) => {
    for (const example of examples) agentFiles[example.file] = example.source;
  });
  let graphPinnedTo: string | undefined;
  // Problems of the editor's agent (the latest validation): a run in the tab cannot start with any.
  let agentProblems = 0;
  // A run opened from history asks for its own agent's graph. The answer is drawn if that run is
  // still the one shown (nothing opened or started since: each bumps this) and the editor's text
  // has not changed; the editor re-validating the same text meanwhile neither replaces it nor
  // makes it stale (it used to: the history's answer lost to a newer request and the graph kept
  // whatever it showed before, at random after a reload).
  let shownFromHistory = 0;
  const editor = agentPanel;
  const validateNow = agentPanel.validateNow;

  // History (its module loads after the first paint).
  type Stores = ReturnType<typeof import('../adapters/indexeddb/index.js').createIndexedDbStores>;
  let stores: Stores | undefined;
  const openRunFromHistory = (runId: string, events: AgentEvent[], label: string) => {
    summary = summarize(events);
    const source = sourceOf(storage, runId);
    const opened = ++shownFromHistory;
    if (source) {
      graphPinnedTo = editor.getText();
      void client.validate(source).then((result) => {
        if (opened === shownFromHistory && graphPinnedTo !== undefined && editor.getText() === graphPinnedTo) runView.setGraph(result.graph);
      });
    }
    runView.show(summary, label);
    // A paused run can be continued from history when its agent file is known (or on its server).
    const paused = summary.status === 'interrupted' && (source !== undefined || remote !== undefined);
    const live = remote !== undefined && summary.status === 'running';
    activeRunId = paused || live ? runId : undefined;
    if (paused && source !== undefined) activeSource = source;
    showResume();
    if (paused && summary.confirmation) openConfirmation();
    byId('run-heading').focus();
    // A run still going on the server: follow it from where its stored events end.
    if (live && remote) {
      setRunning(true);
      void remote.follow(runId, lastSeq(), onRunEvent).then(finish, remoteFailed);
    }
  };
  let tabSource: HistorySource | undefined;
  const historyReady: Promise<HistoryPanel> = import('./history-studio.js').then((module) => {
    try {
      stores = module.createIndexedDbStores({ dbName: DATABASE_NAME });
    } catch {
      stores = undefined;
    }
    const panel = module.createHistoryPanel({
      root: byId('history-panel'),
      storage,
      announce,
      open: openRunFromHistory,
      report: (record, events) => void graphOfRun(record.run_id).then((graph) => saveReport(events, graph, record)),
    });
    tabSource = stores ? module.tabHistory(stores.traceStore) : undefined;
    panel.setSource(tabSource);
    return panel;
  });
  // Server mode (its module loads after the first paint).
  void historyReady.then(async (panel) => {
    const { startServerMode } = await import('./server-mode.js');
    await startServerMode({
      root: byId('backend'),
      storage,
      session,
      announce,
      setGraph: (graph) => {
        graphPinnedTo = editor.getText();
        shownFromHistory++;
        runView.setGraph(graph);
      },
      setInput: (json, problems) => {
        inputArea.value = json;
        formProblems = problems;
        byId('input-error').textContent = '';
      },
      useBackend: (backend, source) => {
        const changed = (remote === undefined) !== (backend === undefined);
        remote = backend;
        if (!backend) formProblems = 0;
        document.body.dataset.backend = backend ? 'server' : 'tab';
        // The header says where runs go: a promise the page must keep in both modes.
        byId('tagline').textContent = backend
          ? `YAML agents running on a tea-edge server (${backend.label}), traced there. Inputs go to that server; it uses its own model settings.`
          : TAB_TAGLINE;
        modelPanel.showBadge();
        if (!backend) modelPanel.scanOnce();
        panel.setSource(source ?? tabSource);
        updateRunButton();
        if (changed && !backend) {
          graphPinnedTo = undefined;
          void validateNow(editor.getText());
        }
      },
    });
    document.body.dataset.studio = 'ready';
  });
  const refreshHistory = () => historyReady.then((panel) => panel.refresh());
  /** Saves a run as one offline HTML report with the studio's views of it (its own lazy chunk). */
  const saveReport = async (events: AgentEvent[], graph: AgentGraph | undefined, record?: RunRecord) => {
    const report = await import('./report-download.js');
    const drawn = graph ? { svg: runView.drawGraph(graph, summarize(events)), kinds: new Map(graph.nodes.map((node) => [node.name, node.kind])) } : undefined;
    announce(`Saved the run as ${report.saveRunReport(events, drawn, record)}.`);
  };
  /** The graph of a run's agent, when its file is known (runs of this tab). */
  const graphOfRun = async (runId: string) => {
    const source = sourceOf(storage, runId);
    return source === undefined ? undefined : (await client.validate(source)).graph;
  };

  // Running, cancelling, confirming.
  const runButton = byId<HTMLButtonElement>('run-button');
  // Problems of the server agent's input form (server mode): such an input is not sent.
  let formProblems = 0;
  const cancelButton = byId<HTMLButtonElement>('cancel-button');
  const resumeButton = byId<HTMLButtonElement>('resume-button');
  let running = false;
  /** Run is off while a run goes, and in the tab while the agent has load problems. */
  const updateRunButton = () => {
    runButton.disabled = running || (!remote && agentProblems > 0);
  };
  const setRunning = (value: boolean) => {
    running = value;
    updateRunButton();
    cancelButton.disabled = !value;
    if (value) resumeButton.hidden = true;
  };
  /** Shows "Resume" for a run paused by an interrupt (tool confirmations use the dialog). */
  function showResume(): void {
    resumeButton.hidden = !(activeRunId !== undefined && summary?.status === 'interrupted' && !summary.confirmation);
  }
  const finish = async (outcome: RunOutcome) => {
    if (summary && outcome.run_id === activeRunId) {
      if (summary.status === 'running' || (outcome.status === 'cancelled' && summary.status !== 'cancelled')) {
        // The worker was terminated (or failed before any event): show the outcome as the end.
        endRun(summary, outcome);
        if (outcome.state) summary.final_state = outcome.state;
        if (!remote) await recordTerminatedRun(outcome);
      }
      runView.show(summary);
      announce(outcomeSentence(summary));
    }
    setRunning(false);
    showResume();
    await refreshHistory();
  };
  const recordTerminatedRun = async (outcome: RunOutcome) => {
    if (!stores || !summary) return;
    const existing = await stores.traceStore.getRun(outcome.run_id).catch(() => undefined);
    if (existing && existing.status !== 'running') return;
    const now = new Date().toISOString();
    await stores.traceStore
      .putRun({ run_id: outcome.run_id, agent: summary.agent || 'agent', status: outcome.status as 'cancelled', stop_reason: outcome.stop_reason ?? 'cancelled', created_at: existing?.created_at ?? now, updated_at: now, ...(outcome.error ? { error: outcome.error as AgentErrorJson } : {}) })
      .catch(() => undefined);
  };
  /** A server request that failed (unreachable, refused): said on screen, the run view ends. */
  const remoteFailed = (error: unknown) => {
    const message = `The server did not run it: ${(error as Error).message}`;
    byId('input-error').textContent = message;
    announce(message);
    if (summary && summary.status === 'running') {
      endRun(summary, { status: 'failed', stop_reason: 'error', error: { code: (error as { code?: string }).code ?? 'SERVER_ERROR', message: (error as Error).message } });
      runView.show(summary);
    }
    setRunning(false);
    showResume();
  };
  const runRemote = async (backend: RemoteBackend, input: Record<string, unknown>) => {
    graphPinnedTo = editor.getText();
    shownFromHistory++;
    activeRunId = undefined;
    summary = emptySummary();
    runView.clear();
    setRunning(true);
    announce('Run started on the server.');
    try {
      const outcome = await backend.run(
        input,
        (runId) => {
          activeRunId = runId;
          summary!.run_id = runId;
          runView.show(summary!, backend.label);
        },
        onRunEvent,
      );
      await finish(outcome);
    } catch (error) {
      remoteFailed(error);
    }
  };
  const run = async () => {
    let input: Record<string, unknown>;
    try {
      const parsed = JSON.parse(inputArea.value.trim() || '{}') as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('the input must be a JSON object');
      input = parsed as Record<string, unknown>;
    } catch (error) {
      announce(`Input is not valid: ${(error as Error).message}`);
      byId('input-error').textContent = `Input is not valid JSON: ${(error as Error).message}`;
      inputArea.focus();
      return;
    }
    if (remote && formProblems > 0) {
      const message = `The input has ${formProblems} problem${formProblems === 1 ? '' : 's'} (shown at the form's fields): fix ${formProblems === 1 ? 'it' : 'them'} to run.`;
      byId('input-error').textContent = message;
      announce(message);
      return;
    }
    byId('input-error').textContent = '';
    if (remote) return runRemote(remote, input);
    // The latest validation may be older than the text (Ctrl+Enter right after typing): the text
    // about to run is checked first, and a run with known load problems is not started.
    const problems = await validateNow(editor.getText());
    if (problems.length > 0) {
      announce(`The agent has ${problems.length} problem${problems.length === 1 ? '' : 's'}: fix ${problems.length === 1 ? 'it' : 'them'} to run.`);
      return;
    }
    activeSource = editor.getText();
    graphPinnedTo = undefined;
    shownFromHistory++;
    activeRunId = crypto.randomUUID();
    rememberSource(storage, activeRunId, activeSource);
    summary = emptySummary(activeRunId);
    runView.clear();
    runView.show(summary, modelPanel.runLabel());
    setRunning(true);
    announce('Run started.');
    await finish(await client.run(activeSource, input, modelPanel.settings(), activeRunId, runView.nextRunPauses()));
  };
  runButton.addEventListener('click', () => void run());
  cancelButton.addEventListener('click', () => {
    if (activeRunId) {
      if (remote) remote.cancel(activeRunId);
      else client.cancel(activeRunId);
      announce('Cancelling…');
    }
  });
  document.addEventListener('keydown', (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === 'Enter' && !runButton.disabled) {
      event.preventDefault();
      void run();
    }
  });

  resumeButton.addEventListener('click', async () => {
    if (!activeRunId || !summary) return;
    summary.status = 'running';
    summary.stop_reason = undefined;
    runView.show(summary);
    setRunning(true);
    await resumeRun({});
  });

  /**
   * Time travel (in the tab): a new run continuing after `node` of the run on screen, from
   * `state`; the agent is the one that run was made with.
   */
  async function runFrom(node: string, state: Record<string, unknown>): Promise<void> {
    const parent = summary;
    if (parent && remote) {
      const backend = remote;
      summary = emptySummary('', parent.agent);
      activeRunId = undefined;
      runView.clear();
      setRunning(true);
      try {
        const outcome = await backend.runFrom(parent.run_id, node, state, (runId) => {
          activeRunId = runId;
          summary!.run_id = runId;
          rememberSource(storage, runId, '', parent.run_id);
          runView.show(summary!, `from node ${node} of run ${parent.run_id.slice(0, 8)} on the server`);
        }, onRunEvent);
        await finish(outcome);
      } catch (error) {
        remoteFailed(error);
      }
      return;
    }
    const source = parent ? sourceOf(storage, parent.run_id) : undefined;
    if (!parent || source === undefined) {
      announce('The agent file of this run is not known any more, so it cannot be run from a node.');
      return;
    }
    activeSource = source;
    activeRunId = crypto.randomUUID();
    rememberSource(storage, activeRunId, source, parent.run_id);
    summary = emptySummary(activeRunId, parent.agent);
    runView.clear();
    runView.show(summary, `from node ${node} of run ${parent.run_id.slice(0, 8)}`);
    setRunning(true);
    announce(`Run started from node ${node}.`);
    await finish(await client.fork(source, activeRunId, parent.run_id, node, state, modelPanel.settings()));
  }

  /** Continues the active run (paused by an interrupt, or waiting for a tool approval; the state edited at the pause). */
  async function resumeRun(update: ResumeUpdate): Promise<void> {
    if (!activeRunId) return;
    if (!remote) return finish(await client.resume(activeSource, activeRunId, update, modelPanel.settings(), runView.nextRunPauses()));
    await remote.resume(activeRunId, update, lastSeq(), onRunEvent).then(finish, remoteFailed);
  }
  /** Continues the paused run on screen with its state changed ("Continue with this state" under the graph). */
  const continueWith = async (stateUpdate: Record<string, unknown>) => {
    if (!activeRunId || !summary) return;
    summary.status = 'running';
    summary.stop_reason = undefined;
    runView.show(summary);
    setRunning(true);
    announce('Run continued with the state edited.');
    await resumeRun({ state_update: stateUpdate });
  };

  const dialog = createConfirmDialog((approved) => void answer(approved));
  function openConfirmation(): void {
    if (summary?.confirmation) dialog.open(summary.confirmation);
  }
  const answer = async (approved: boolean) => {
    if (!activeRunId || !summary) return;
    summary.confirmation = undefined;
    summary.status = 'running';
    summary.stop_reason = undefined;
    runView.show(summary);
    setRunning(true);
    await resumeRun({ approval: { approved } });
  };

  // The service worker caches the whole shell (both engines, the editor); registering it only once
  // the page is up keeps that download from slowing the first visit.
  if ('serviceWorker' in navigator && location.protocol !== 'file:') {
    void Promise.all([client.ready, agentPanel.editorLoaded]).then(() => navigator.serviceWorker.register('sw.js').catch(() => undefined));
  }
  // The timeline and the per-action views: their own chunk, after the first paint.
  void import('./studio-views.js').then((module) => {
    runView.setExtra(
      (shown, graph, nav) =>
        module.studioViews(shown, graph, { focusNode: nav.selected, ...(shown.status === 'running' ? {} : { onReport: () => void saveReport(shown.events, graph), onRunFrom: (node, state) => void runFrom(node, state) }) }),
      (shown, graph, nav) =>
        module.graphPanel({
          summary: shown,
          graph,
          nav,
          server: remote !== undefined,
          running,
          // A pause that waits for an interrupt's Resume (not a tool's approval) can be continued with the state edited.
          onContinue: shown && !running && shown.run_id === activeRunId && shown.status === 'interrupted' && !shown.confirmation ? (update) => void continueWith(update) : undefined,
        }),
    );
    document.body.dataset.views = 'ready';
  });
  // Offline, the tab's engine and the scripted model still run; a server and model servers do not.
  const offlineChip = byId('offline-chip');
  const showOnline = () => {
    offlineChip.hidden = navigator.onLine;
  };
  window.addEventListener('online', showOnline);
  window.addEventListener('offline', showOnline);
  showOnline();
  document.body.dataset.ready = 'true';
  performance.mark('tea-ui-ready');
  void client.ready.then(() => {
    performance.mark('tea-engine-ready');
    document.body.dataset.engine = 'ready';
  });
}

function safeStorage(name: 'localStorage' | 'sessionStorage'): Storage | undefined {
  try {
    return window[name];
  } catch {
    return undefined;
  }
}

start();
