/**
 * Under the graph (the studio's lazy chunk): the node picked on the graph, how often it ran, and
 * the pauses for the next run (before or after it, like `interrupt:` in the file); and, when the
 * run on screen waits at an interrupt, its state to edit and continue with (a resume with a
 * `state_update`: the keys changed or added, merged into the state before the run goes on).
 */
import { useState } from 'preact/hooks';
import type { AgentGraph } from './agent-graph.js';
import type { RunSummary } from './run-summary.js';
import type { GraphNav } from './run-view.js';
import { parseStateJson } from './state-json.js';

export interface GraphPanelProps {
  summary: RunSummary | undefined;
  graph: AgentGraph | undefined;
  nav: GraphNav;
  /** Runs go to a server: its run route takes only the input, so pauses cannot be set from here. */
  server: boolean;
  running: boolean;
  /** Present when the run shown waits at an interrupt this page can continue. */
  onContinue: ((stateUpdate: Record<string, unknown>) => void) | undefined;
}

export function GraphPanel({ summary, graph, nav, server, running, onContinue }: GraphPanelProps) {
  const node = nav.selected !== undefined ? graph?.nodes.find((candidate) => candidate.name === nav.selected) : undefined;
  const pause = summary?.status === 'interrupted' && !summary.confirmation ? summary.pause : undefined;
  if (!node && !pause) return null;
  return (
    <>
      {pause ? <PauseEditor key={`${summary!.run_id}:${summary!.event_count}`} node={pause.node} position={pause.position} state={summary!.final_state ?? {}} onContinue={onContinue} /> : null}
      {node ? <NodePanel name={node.name} kind={node.kind} summary={summary} nav={nav} server={server} running={running} /> : null}
    </>
  );
}

function NodePanel({ name, kind, summary, nav, server, running }: { name: string; kind: string; summary: RunSummary | undefined; nav: GraphNav; server: boolean; running: boolean }) {
  const runs = summary ? summary.visited.filter((visited) => visited === name).length : 0;
  const calls = summary ? summary.calls.filter((call) => call.node === name).length : 0;
  const said = !summary
    ? 'No run is shown.'
    : runs > 0
      ? `It ran ${runs === 1 ? 'once' : `${runs} times`}${calls > 0 ? ` with ${calls} model call${calls === 1 ? '' : 's'}` : ''}: its runs are marked in the timeline, the last one selected with its state.`
      : summary.status === 'running' || summary.status === 'interrupted'
        ? 'It has not run yet.'
        : 'It did not run in this run.';
  return (
    <section class="node-panel" id="node-panel" aria-labelledby="node-panel-heading">
      <h3 id="node-panel-heading">
        {'Node '}
        <code>{name}</code>
        <span class="muted">{` (${kind})`}</span>
      </h3>
      <p class="note" id="node-panel-runs">{said}</p>
      <fieldset class="next-run-pauses" disabled={server}>
        <legend>Pause the next run</legend>
        {(['before', 'after'] as const).map((position) => (
          <label key={position} class="inline">
            <input
              type="checkbox"
              id={`pause-${position}`}
              checked={(position === 'before' ? nav.pauseBefore : nav.pauseAfter).has(name)}
              onChange={(event) => nav.setPause(name, position, event.currentTarget.checked)}
            />
            {` ${position} ${name}`}
          </label>
        ))}
      </fieldset>
      <p class="note" id="next-run-pauses-note">
        {server
          ? "A server's run starts with its input only (POST /agents/:name/runs takes no pauses): set interrupt: before or after on the node in the agent file on the server."
          : `Runs started in this tab${running ? ' from now on' : ''} pause there, as interrupt: in the agent file would; Resume goes on.`}
      </p>
      <button type="button" id="node-panel-close" onClick={() => nav.select(undefined)}>Close</button>
    </section>
  );
}

/**
 * The state where the run waits, as JSON to edit; "Continue with this state" resumes with the keys
 * changed or added. A key taken out cannot be: a state update merges, it never removes.
 */
function PauseEditor({ node, position, state, onContinue }: { node: string; position: 'before' | 'after'; state: Record<string, unknown>; onContinue: GraphPanelProps['onContinue'] }) {
  const [text, setText] = useState(() => JSON.stringify(state, null, 2));
  const [error, setError] = useState('');
  const go = () => {
    const read = parseStateJson(text);
    if ('error' in read) return setError(read.error);
    const edited = read.state;
    const removed = Object.keys(state).filter((key) => !Object.hasOwn(edited, key));
    if (removed.length > 0) return setError(`A key cannot be taken out at a pause (the update is merged into the state): ${removed.join(', ')}. Set it to null instead.`);
    const update = Object.fromEntries(Object.entries(edited).filter(([key, value]) => !Object.hasOwn(state, key) || JSON.stringify(value) !== JSON.stringify(state[key])));
    setError('');
    onContinue?.(update);
  };
  return (
    <section class="pause-editor" id="pause-editor" aria-labelledby="pause-editor-heading">
      <h3 id="pause-editor-heading">
        {`Paused ${position} `}
        <code>{node}</code>
      </h3>
      <label for="pause-state">{`The state ${position === 'before' ? `${node} will start from` : `after ${node}`} (edit it, then continue)`}</label>
      <textarea id="pause-state" rows={Math.min(14, text.split('\n').length + 1)} spellcheck={false} value={text} disabled={!onContinue} onInput={(event) => {
          setText(event.currentTarget.value);
          setError('');
        }} />
      <p class="bad-text" role="alert" id="pause-state-error">{error}</p>
      {onContinue ? (
        <button type="button" class="primary" id="pause-continue" onClick={go}>Continue with this state</button>
      ) : (
        <p class="note">This run cannot be continued from here (its agent file is not known to this tab, or it is not the run this page started or opened to resume).</p>
      )}
    </section>
  );
}
