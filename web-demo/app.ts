/**
 * The tea-edge web demo: pick or write an agent, run it in a Web Worker against a model on this
 * machine (or the scripted demo model), watch it live, and find every run again in the history
 * kept in IndexedDB. The editor (CodeMirror) is loaded after the first paint, in its own chunk.
 *
 * `start` wires the page's components: the run view, the engine client, the model panel, the
 * agent panel with the graph it draws (graph-pin.ts), the run buttons (run-buttons.ts), the
 * history (history-loader.ts), server mode, the confirmation dialog and the page status
 * (page-status.ts), and the run on screen with its flow (run-flow.ts: start, follow, resume, run
 * from a node, finish). What it keeps itself is where runs go (this tab or a server) and the
 * state those share: the agent's problems, the input form's problems.
 */
import type { AgentEvent } from '../src/core/events.js';
import type { RunRecord } from '../src/core/trace-store.js';
import type { AgentGraph } from './agent-graph.js';
import { EngineClient } from './engine-client.js';
import type { RemoteBackend } from './backend.js';
import { createModelPanel } from './model-panel.js';
import { createConfirmDialog } from './confirm-dialog.js';
import { createRunView } from './run-view.js';
import { summarize } from './run-summary.js';
import { createAgentPanel } from './agent-panel.js';
import { sourceOf } from './run-sources.js';
import { createRunFlow } from './run-flow.js';
import { createGraphPin } from './graph-pin.js';
import { createRunButtons } from './run-buttons.js';
import { loadHistory, type Stores } from './history-loader.js';
import { markReady, registerServiceWorker, watchOnline } from './page-status.js';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const TAB_TAGLINE =
  'YAML agents running in this tab, traced in IndexedDB. Nothing is sent anywhere but the model server you choose.';

/** Starts the app in the page built from index.html. */
function start(): void {
  const storage = safeStorage('localStorage');
  const session = safeStorage('sessionStorage');

  const announcer = byId('announcer');
  const announce = (message: string) => {
    announcer.textContent = message;
  };
  const runView = createRunView(byId('run-view'));
  // Where runs go: this tab's engine workers, or a server (server mode sets it).
  let remote: RemoteBackend | undefined;
  // Agents run the other bundled examples as sub-runs (agent.* with {file: …}): filled when the
  // examples' chunk has loaded.
  const agentFiles: Record<string, string> = {};
  const client = new EngineClient({
    workerUrl: new URL('engine-worker.js', document.baseURI).href,
    luaWorkerUrl: new URL('engine-worker-lua.js', document.baseURI).href,
    onEvent: (runId, event) => flow.onRunEvent(runId, event),
    onRestart: () => announce('The engine worker was restarted.'),
    agentFiles,
  });

  // The tab's model settings, the header badge and the search for a local model server.
  const modelPanel = createModelPanel({ storage, session, client, remote: () => remote !== undefined });

  // The agent: examples, the plain text area until the editor arrives, validation; the graph.
  const inputArea = byId<HTMLTextAreaElement>('run-input');
  // Problems of the editor's agent (the latest validation): a run in the tab cannot start with any.
  let agentProblems = 0;
  // Problems of the server agent's input form (server mode): such an input is not sent.
  let formProblems = 0;
  const graphs = createGraphPin({
    validate: (text) => client.validate(text),
    setGraph: (graph) => runView.setGraph(graph),
    editorText: () => editor.getText(),
  });
  const editor = createAgentPanel({
    storage,
    validate: graphs.validate,
    onValidated: (result) => {
      if (!graphs.isLatest(result)) return;
      agentProblems = result.problems.length;
      buttons.update();
      graphs.showValidated(result);
    },
  });
  void editor.examples.then((examples) => {
    for (const example of examples) agentFiles[example.file] = example.source;
  });

  // History (its module loads after the first paint), then server mode.
  let stores: Stores | undefined;
  const historyReady = loadHistory({
    root: byId('history-panel'),
    storage,
    announce,
    open: (runId, events, label) => flow.openFromHistory(runId, events, label),
    report: (record, events) => void graphOfRun(record.run_id).then((graph) => saveReport(events, graph, record)),
  }).then((history) => {
    stores = history.stores;
    return history;
  });
  void historyReady.then(async ({ panel, tabSource }) => {
    const { startServerMode } = await import('./server-mode.js');
    await startServerMode({
      root: byId('backend'),
      storage,
      session,
      announce,
      setGraph: (graph) => graphs.pinGraph(graph),
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
        buttons.update();
        if (changed && !backend) {
          graphs.unpin();
          void editor.validateNow(editor.getText());
        }
      },
    });
    document.body.dataset.studio = 'ready';
  });
  const refreshHistory = () => historyReady.then(({ panel }) => panel.refresh());
  /** Saves a run as one offline HTML report with the studio's views of it (its own lazy chunk). */
  const saveReport = async (events: AgentEvent[], graph: AgentGraph | undefined, record?: RunRecord) => {
    const report = await import('./report-download.js');
    const drawn = graph
      ? {
          svg: runView.drawGraph(graph, summarize(events)),
          kinds: new Map(graph.nodes.map((node) => [node.name, node.kind])),
        }
      : undefined;
    announce(`Saved the run as ${report.saveRunReport(events, drawn, record)}.`);
  };
  /** The graph of a run's agent, when its file is known (runs of this tab). */
  const graphOfRun = async (runId: string) => {
    const source = sourceOf(storage, runId);
    return source === undefined ? undefined : (await client.validate(source)).graph;
  };

  // Running, cancelling, confirming.
  const buttons = createRunButtons({
    // In the tab, an agent with load problems does not run.
    canRun: () => remote !== undefined || agentProblems === 0,
    onRun: () => void flow.run(),
    onCancel: () => flow.cancel(),
    onResume: () => void flow.resumePaused(),
  });
  /** The run input: a JSON object (said on screen when it is not, or when the server agent's form has problems). */
  const readInput = (): Record<string, unknown> | undefined => {
    let input: Record<string, unknown>;
    try {
      const parsed = JSON.parse(inputArea.value.trim() || '{}') as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('the input must be a JSON object');
      input = parsed as Record<string, unknown>;
    } catch (error) {
      announce(`Input is not valid: ${(error as Error).message}`);
      byId('input-error').textContent = `Input is not valid JSON: ${(error as Error).message}`;
      inputArea.focus();
      return undefined;
    }
    if (remote && formProblems > 0) {
      const message = `The input has ${formProblems} problem${formProblems === 1 ? '' : 's'} (shown at the form's fields): fix ${formProblems === 1 ? 'it' : 'them'} to run.`;
      byId('input-error').textContent = message;
      announce(message);
      return undefined;
    }
    byId('input-error').textContent = '';
    return input;
  };
  const dialog = createConfirmDialog((approved) => void flow.answer(approved));
  const flow = createRunFlow({
    runView,
    client,
    modelPanel,
    editor,
    graphs,
    buttons,
    dialog: () => dialog,
    storage,
    announce,
    remote: () => remote,
    stores: () => stores,
    refreshHistory,
    readInput,
  });

  registerServiceWorker(Promise.all([client.ready, editor.editorLoaded]));
  // The timeline and the per-action views: their own chunk, after the first paint.
  void import('./studio-views.js').then((module) => {
    runView.setExtra(
      (shown, graph, nav) =>
        module.studioViews(shown, graph, {
          focusNode: nav.selected,
          ...(shown.status === 'running'
            ? {}
            : {
                onReport: () => void saveReport(shown.events, graph),
                onRunFrom: (node, state) => void flow.runFrom(node, state),
              }),
        }),
      (shown, graph, nav) =>
        module.graphPanel({
          summary: shown,
          graph,
          nav,
          server: remote !== undefined,
          running: buttons.running,
          // A pause that waits for an interrupt's Resume (not a tool's approval) can be continued with the state edited.
          onContinue: flow.canContinue(shown) ? (update) => void flow.continueWith(update) : undefined,
        }),
    );
    document.body.dataset.views = 'ready';
  });
  watchOnline(byId('offline-chip'));
  markReady(client.ready);
}

function safeStorage(name: 'localStorage' | 'sessionStorage'): Storage | undefined {
  try {
    return window[name];
  } catch {
    return undefined;
  }
}

start();
