/**
 * The run on screen and its flow, in the tab or on a server: start a run (the editor's agent in
 * the tab, the chosen agent on a server), follow its events, finish it (a worker terminated or a
 * server that stopped answering ends the view honestly), open one from the history (a paused run
 * can be continued, a live server run is followed), resume a pause (with an approval or the state
 * edited at it), run from a node (time travel), cancel.
 */
import type { AgentErrorJson } from '../src/core/agent-error.js';
import type { AgentEvent } from '../src/core/events.js';
import type { RemoteBackend, ResumeUpdate } from './backend.js';
import type { ConfirmDialog } from './confirm-dialog.js';
import type { EngineClient } from './engine-client.js';
import type { AgentPanel } from './agent-panel.js';
import type { GraphPin } from './graph-pin.js';
import type { Stores } from './history-loader.js';
import type { ModelPanel } from './model-panel.js';
import type { RunOutcome } from './protocol.js';
import type { RunButtons } from './run-buttons.js';
import { applyEvent, emptySummary, endRun, summarize, type RunSummary } from './run-summary.js';
import { outcomeSentence } from './run-outcome.js';
import type { RunView } from './run-view.js';
import { rememberSource, sourceOf } from './run-sources.js';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export interface RunFlowDeps {
  runView: RunView;
  client: EngineClient;
  modelPanel: ModelPanel;
  editor: AgentPanel;
  graphs: GraphPin;
  buttons: RunButtons;
  dialog: () => ConfirmDialog;
  storage: Storage | undefined;
  announce(message: string): void;
  /** Where runs go now: a server, or undefined for this tab. */
  remote(): RemoteBackend | undefined;
  /** The tab's stores, once the history has loaded them. */
  stores(): Stores | undefined;
  refreshHistory(): Promise<unknown>;
  /** The run input, or undefined when it is not valid (said on screen). */
  readInput(): Record<string, unknown> | undefined;
}

export interface RunFlow {
  /** An event of a run: applied when it is the run on screen. */
  onRunEvent(runId: string, event: AgentEvent): void;
  openFromHistory(runId: string, events: AgentEvent[], label: string): void;
  run(): Promise<void>;
  cancel(): void;
  /** Resume paused run (an interrupt). */
  resumePaused(): Promise<void>;
  runFrom(node: string, state: Record<string, unknown>): Promise<void>;
  /** Whether a run shown can be continued with its state edited (paused by an interrupt, nothing running). */
  canContinue(shown: RunSummary | undefined): boolean;
  continueWith(stateUpdate: Record<string, unknown>): Promise<void>;
  /** The answer to a tool approval. */
  answer(approved: boolean): Promise<void>;
}

export function createRunFlow(deps: RunFlowDeps): RunFlow {
  const { runView, client, modelPanel, editor, graphs, storage, announce } = deps;
  let summary: RunSummary | undefined;
  let activeRunId: string | undefined;
  let activeSource = '';
  const onRunEvent = (runId: string, event: AgentEvent) => {
    if (runId !== activeRunId || !summary) return;
    applyEvent(summary, event);
    runView.show(summary);
    if (event.type === 'confirmation_request') openConfirmation();
  };
  const lastSeq = () => summary?.events.at(-1)?.seq ?? 0;
  const setRunning = (value: boolean) => deps.buttons.setRunning(value);
  /** Shows "Resume" for a run paused by an interrupt (tool confirmations use the dialog). */
  function showResume(): void {
    deps.buttons.showResume(activeRunId !== undefined && summary?.status === 'interrupted' && !summary.confirmation);
  }
  const openFromHistory = (runId: string, events: AgentEvent[], label: string) => {
    const remote = deps.remote();
    summary = summarize(events);
    const source = sourceOf(storage, runId);
    graphs.openFromHistory(source);
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
  const finish = async (outcome: RunOutcome) => {
    if (summary && outcome.run_id === activeRunId) {
      if (summary.status === 'running' || (outcome.status === 'cancelled' && summary.status !== 'cancelled')) {
        // The worker was terminated (or failed before any event): show the outcome as the end.
        endRun(summary, outcome);
        if (outcome.state) summary.final_state = outcome.state;
        if (!deps.remote()) await recordTerminatedRun(outcome);
      }
      runView.show(summary);
      announce(outcomeSentence(summary));
    }
    setRunning(false);
    showResume();
    await deps.refreshHistory();
  };
  const recordTerminatedRun = async (outcome: RunOutcome) => {
    const stores = deps.stores();
    if (!stores || !summary) return;
    const existing = await stores.traceStore.getRun(outcome.run_id).catch(() => undefined);
    if (existing && existing.status !== 'running') return;
    const now = new Date().toISOString();
    await stores.traceStore
      .putRun({
        run_id: outcome.run_id,
        agent: summary.agent || 'agent',
        status: outcome.status as 'cancelled',
        stop_reason: outcome.stop_reason ?? 'cancelled',
        created_at: existing?.created_at ?? now,
        updated_at: now,
        ...(outcome.error ? { error: outcome.error as AgentErrorJson } : {}),
      })
      .catch(() => undefined);
  };
  /** A server request that failed (unreachable, refused): said on screen, the run view ends. */
  const remoteFailed = (error: unknown) => {
    const message = `The server did not run it: ${(error as Error).message}`;
    byId('input-error').textContent = message;
    announce(message);
    if (summary && summary.status === 'running') {
      endRun(summary, {
        status: 'failed',
        stop_reason: 'error',
        error: { code: (error as { code?: string }).code ?? 'SERVER_ERROR', message: (error as Error).message },
      });
      runView.show(summary);
    }
    setRunning(false);
    showResume();
  };
  const runRemote = async (backend: RemoteBackend, input: Record<string, unknown>) => {
    graphs.pin();
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
    const input = deps.readInput();
    const remote = deps.remote();
    if (input === undefined) return;
    if (remote) return runRemote(remote, input);
    // The latest validation may be older than the text (Ctrl+Enter right after typing): the text
    // about to run is checked first, and a run with known load problems is not started.
    const problems = await editor.validateNow(editor.getText());
    if (problems.length > 0) {
      announce(
        `The agent has ${problems.length} problem${problems.length === 1 ? '' : 's'}: fix ${problems.length === 1 ? 'it' : 'them'} to run.`,
      );
      return;
    }
    activeSource = editor.getText();
    graphs.unpin();
    activeRunId = crypto.randomUUID();
    rememberSource(storage, activeRunId, activeSource);
    summary = emptySummary(activeRunId);
    runView.clear();
    runView.show(summary, modelPanel.runLabel());
    setRunning(true);
    announce('Run started.');
    await finish(await client.run(activeSource, input, modelPanel.settings(), activeRunId, runView.nextRunPauses()));
  };

  const resumePaused = async () => {
    if (!activeRunId || !summary) return;
    summary.status = 'running';
    summary.stop_reason = undefined;
    runView.show(summary);
    setRunning(true);
    await resumeRun({});
  };

  /**
   * Time travel (in the tab): a new run continuing after `node` of the run on screen, from
   * `state`; the agent is the one that run was made with.
   */
  async function runFrom(node: string, state: Record<string, unknown>): Promise<void> {
    const parent = summary;
    const remote = deps.remote();
    if (parent && remote) {
      const backend = remote;
      summary = emptySummary('', parent.agent);
      activeRunId = undefined;
      runView.clear();
      setRunning(true);
      try {
        const outcome = await backend.runFrom(
          parent.run_id,
          node,
          state,
          (runId) => {
            activeRunId = runId;
            summary!.run_id = runId;
            rememberSource(storage, runId, '', parent.run_id);
            runView.show(summary!, `from node ${node} of run ${parent.run_id.slice(0, 8)} on the server`);
          },
          onRunEvent,
        );
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
    const remote = deps.remote();
    if (!activeRunId) return;
    if (!remote)
      return finish(
        await client.resume(activeSource, activeRunId, update, modelPanel.settings(), runView.nextRunPauses()),
      );
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

  function openConfirmation(): void {
    if (summary?.confirmation) deps.dialog().open(summary.confirmation);
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

  return {
    onRunEvent,
    openFromHistory,
    run,
    cancel() {
      if (!activeRunId) return;
      const remote = deps.remote();
      if (remote) remote.cancel(activeRunId);
      else client.cancel(activeRunId);
      announce('Cancelling…');
    },
    resumePaused,
    runFrom,
    canContinue: (shown) =>
      shown !== undefined &&
      !deps.buttons.running &&
      shown.run_id === activeRunId &&
      shown.status === 'interrupted' &&
      !shown.confirmation,
    continueWith,
    answer,
  };
}
