/**
 * Two runs side by side (the same agent on two models, or before and after an edit), the older as
 * A and the newer as B whichever was picked first: the outcome, the figures (time, tokens, model
 * calls, models) with the difference, the agent files as a line diff (when this tab knows them),
 * the steps aligned (the node runs of both, matched by name in order), and the final states key
 * by key.
 */
import type { AgentEvent } from '../src/core/events.js';
import type { RunRecord } from '../src/core/trace-store.js';
import { runFigures, type RunFigures } from './run-figures.js';
import { summarize } from './run-summary.js';
import { StateDiff } from './timeline-view.js';
import { buildTimeline, type TimelineItem } from './timeline.js';
import { diffLines, diffSequence, type DiffLine } from './diff.js';
import { DiffView } from './diff-view.js';

export interface ComparedRun {
  record: RunRecord;
  events: AgentEvent[];
  /** The agent file it ran, when this tab knows it (runs it started; a server keeps its own). */
  source?: string | undefined;
}

/** The pair in time order: A the older (by its record's start), B the newer. */
export function olderFirst<T extends { record: RunRecord }>(x: T, y: T): [T, T] {
  return Date.parse(y.record.created_at) < Date.parse(x.record.created_at) ? [y, x] : [x, y];
}

const ROWS: [string, (figures: RunFigures) => number | string][] = [
  ['Time (ms)', (figures) => figures.duration_ms],
  ['Tokens', (figures) => figures.tokens],
  ['Model calls', (figures) => figures.model_calls],
  ['Failed model calls', (figures) => figures.failed_calls],
  ['Steps (node runs)', (figures) => figures.nodes],
  ['Models', (figures) => figures.models.join(', ') || '—'],
];

export function CompareView({ a, b, onClose }: { a: ComparedRun; b: ComparedRun; onClose(): void }) {
  const runs = olderFirst(a, b).map((run) => ({ ...run, summary: summarize(run.events), figures: runFigures(run.events) }));
  const [left, right] = runs as [(typeof runs)[0], (typeof runs)[0]];
  return (
    <section class="compare" id="compare-view" aria-labelledby="compare-heading">
      <h3 id="compare-heading">Comparison: A (older) → B (newer)</h3>
      <ol class="compare-runs" id="compare-runs">
        {runs.map((run, index) => (
          <li key={run.record.run_id}>
            <strong>{index === 0 ? 'A, older' : 'B, newer'}</strong>
            {`: ${run.record.agent} · run ${run.record.run_id.slice(0, 8)} · started ${startedAt(run.record)}`}
          </li>
        ))}
      </ol>
      <table class="compare-table">
        <thead>
          <tr>
            <th scope="col">
              <span class="visually-hidden">Figure</span>
            </th>
            {runs.map((run, index) => (
              <th key={index} scope="col">{`${index === 0 ? 'A' : 'B'}: ${run.record.agent} · ${run.record.run_id.slice(0, 8)}`}</th>
            ))}
            <th scope="col">B − A</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Outcome</th>
            {runs.map((run, index) => (
              <td key={index}>
                <span class={`badge status-${run.summary.status}`}>{run.summary.status}</span>
                {run.summary.stop_reason && run.summary.stop_reason !== run.summary.status ? ` ${run.summary.stop_reason}` : ''}
                {run.summary.error ? <span class="bad-text">{` ${run.summary.error.code}`}</span> : null}
              </td>
            ))}
            <td>{left.summary.status === right.summary.status ? 'same' : 'differs'}</td>
          </tr>
          {ROWS.map(([label, read]) => {
            const [x, y] = [read(left.figures), read(right.figures)];
            return (
              <tr key={label}>
                <th scope="row">{label}</th>
                <td>{String(x)}</td>
                <td>{String(y)}</td>
                <td>{typeof x === 'number' && typeof y === 'number' ? signed(y - x) : x === y ? 'same' : 'differs'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <h4>Agent file: A → B</h4>
      <AgentFileDiff a={left} b={right} />
      <h4>Steps, aligned</h4>
      <AlignedSteps a={left.events} b={right.events} />
      <h4>Final state: A → B</h4>
      <StateDiff before={left.summary.final_state} after={right.summary.final_state} />
      <button type="button" id="compare-close" onClick={onClose}>Close the comparison</button>
    </section>
  );
}

/** The agent files of the two runs as a line diff, or why it cannot be shown. */
function AgentFileDiff({ a, b }: { a: ComparedRun; b: ComparedRun }) {
  const unknown = [a, b].filter((run) => run.source === undefined).map((run) => (run === a ? 'A' : 'B'));
  if (unknown.length > 0) {
    return (
      <p class="note" id="compare-agent-file">
        {`The agent file of ${unknown.join(' and ')} is not known here: this tab keeps the file of the last 40 runs it started; a server keeps its runs' files itself.`}
      </p>
    );
  }
  if (a.source === b.source) return <p class="note" id="compare-agent-file">Both ran the same agent file.</p>;
  const lines = diffLines(a.source!, b.source!);
  const changed = lines.filter((line) => line.kind !== 'same').length;
  return (
    <div id="compare-agent-file">
      <DiffView lines={aroundChanges(lines, 3)} label={`${changed} line${changed === 1 ? '' : 's'} changed (unchanged stretches folded)`} />
    </div>
  );
}

/** The changed lines with `context` unchanged ones around them; each longer unchanged stretch becomes one line saying how long it is. */
function aroundChanges(lines: DiffLine[], context: number): DiffLine[] {
  const near = lines.map(() => false);
  lines.forEach((line, index) => {
    if (line.kind === 'same') return;
    for (let at = Math.max(0, index - context); at <= Math.min(lines.length - 1, index + context); at++) near[at] = true;
  });
  const shown: DiffLine[] = [];
  let folded = 0;
  const fold = () => {
    if (folded > 0) shown.push({ kind: 'same', text: `… ${folded} unchanged line${folded === 1 ? '' : 's'}` });
    folded = 0;
  };
  lines.forEach((line, index) => {
    if (near[index]) {
      fold();
      shown.push(line);
    } else folded++;
  });
  fold();
  return shown;
}

/**
 * The node runs of both runs, aligned by node name in order (a longest common subsequence): a row
 * per step, with what each side did (time, status) and whether its state update differs.
 */
function AlignedSteps({ a, b }: { a: readonly AgentEvent[]; b: readonly AgentEvent[] }) {
  const steps = (events: readonly AgentEvent[]) => buildTimeline(events).items.filter((item) => item.kind === 'node' || item.kind === 'lua');
  const left = steps(a);
  const right = steps(b);
  const rows: { a?: TimelineItem; b?: TimelineItem }[] = [];
  let i = 0;
  let j = 0;
  for (const line of diffSequence(left.map((item) => item.label), right.map((item) => item.label))) {
    if (line.kind === 'same') rows.push({ a: left[i++]!, b: right[j++]! });
    else if (line.kind === 'removed') rows.push({ a: left[i++]! });
    else rows.push({ b: right[j++]! });
  }
  if (rows.length === 0) return <p class="note">Neither run ran a node.</p>;
  return (
    <div class="compare-steps-box">
      <table class="compare-table compare-steps" id="compare-steps">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">A</th>
            <th scope="col">B</th>
            <th scope="col">B against A</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => {
            const note = !row.a ? 'only in B' : !row.b ? 'only in A' : JSON.stringify(row.a.update ?? null) === JSON.stringify(row.b.update ?? null) ? 'same update' : 'update differs';
            return (
              <tr key={index} class={`step-${note.replace(/ /g, '-')}`}>
                <td>{index + 1}</td>
                <td>{row.a ? <StepCell item={row.a} /> : '—'}</td>
                <td>{row.b ? <StepCell item={row.b} /> : '—'}</td>
                <td>{note}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function StepCell({ item }: { item: TimelineItem }) {
  const took = item.end === undefined ? '' : ` · ${Math.round(item.end - item.start)} ms`;
  return (
    <>
      <code>{item.label}</code>
      {`${took}${item.status === 'ok' ? '' : ` · ${item.status}`}`}
    </>
  );
}

function startedAt(record: RunRecord): string {
  const when = new Date(record.created_at);
  return Number.isNaN(when.getTime()) ? record.created_at : when.toLocaleString();
}

function signed(value: number): string {
  return value === 0 ? '0' : value > 0 ? `+${value}` : String(value);
}
