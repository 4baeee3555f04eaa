/**
 * Two runs side by side (the same agent on two models, or before and after an edit): the
 * outcome, the figures (time, tokens, model calls, models) with the difference, and the final
 * states key by key.
 */
import type { AgentEvent } from '../src/core/events.js';
import type { RunRecord } from '../src/core/trace-store.js';
import { runFigures, type RunFigures } from './run-figures.js';
import { summarize } from './run-summary.js';
import { StateDiff } from './timeline-view.js';

export interface ComparedRun {
  record: RunRecord;
  events: AgentEvent[];
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
  const runs = [a, b].map((run) => ({ ...run, summary: summarize(run.events), figures: runFigures(run.events) }));
  const [left, right] = runs as [(typeof runs)[0], (typeof runs)[0]];
  return (
    <section class="compare" id="compare-view" aria-labelledby="compare-heading">
      <h3 id="compare-heading">Comparison</h3>
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
                {run.summary.stop_reason ? ` ${run.summary.stop_reason}` : ''}
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
      <h4>Final state: A → B</h4>
      <StateDiff before={left.summary.final_state} after={right.summary.final_state} />
      <button type="button" id="compare-close" onClick={onClose}>Close the comparison</button>
    </section>
  );
}

function signed(value: number): string {
  return value === 0 ? '0' : value > 0 ? `+${value}` : String(value);
}
