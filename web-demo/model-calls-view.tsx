/**
 * The model calls of a run in the live view: a call still waiting shows a spinner, how long it
 * has waited and, after a failed attempt, the countdown to the retry; a failed call shows its
 * error and attempts. Answered calls without retries are only counted, so a long run stays
 * readable. The clocks tick on their own (`useNow`), so a tick re-renders only them.
 */
import { useNow } from './clock.js';
import type { ModelCallView, RunSummary } from './run-summary.js';

/** The notable calls (waiting, failed, retried) plus the counts; null when every call was simply answered. */
export function ModelCalls({ summary }: { summary: RunSummary }) {
  const notable = summary.calls.map((call, index) => ({ call, index })).filter(({ call }) => call.state !== 'answered' || call.retries.length > 0);
  if (notable.length === 0) return null;
  const counts: [string, number][] = [
    ['answered', countOf(summary.calls, 'answered')],
    ['failed', countOf(summary.calls, 'failed') + countOf(summary.calls, 'stopped')],
    ['cancelled', countOf(summary.calls, 'cancelled')],
    ['streaming', summary.calls.filter((call) => call.state === 'waiting' && call.received !== undefined).length],
    ['waiting', summary.calls.filter((call) => call.state === 'waiting' && call.received === undefined).length],
  ];
  const total = `${summary.calls.length} model call${summary.calls.length === 1 ? '' : 's'}`;
  return (
    <div class="model-calls">
      <p class="note" id="model-calls-count">{`${total}: ${counts.filter(([, count]) => count > 0).map(([label, count]) => `${count} ${label}`).join(', ')}.`}</p>
      <ol class="calls" id="model-calls">
        {notable.map(({ call, index }) => <CallItem key={index} call={call} number={index + 1} />)}
      </ol>
    </div>
  );
}

function CallItem({ call, number }: { call: ModelCallView; number: number }) {
  const where = [call.model ? `${call.model}` : 'model', call.node ? `in ${call.node}` : '', call.label ? `(${call.label})` : ''].filter(Boolean).join(' ');
  let parts;
  if (call.state === 'waiting') {
    const retry = call.retries[call.retries.length - 1];
    parts = (
      <>
        <span class="spinner" aria-hidden="true" />
        {` Call ${number} to ${where}: ${call.received !== undefined ? 'streaming' : 'running'} for `}
        <Elapsed since={call.started} />
        {call.received !== undefined ? <span class="received">{` · ${call.received} characters received`}</span> : null}
        {retry ? (
          <>
            {' · attempt '}
            {String(retry.attempt - 1)}
            {' failed with '}
            <code>{retry.code}</code>
            {' · '}
            <Countdown until={Date.parse(retry.at) + retry.delay_ms} attempt={retry.attempt} />
          </>
        ) : null}
      </>
    );
  } else if (call.state === 'cancelled') {
    parts = (
      <>
        <span class="badge">cancelled</span>
        {` Call ${number} to ${where}: cancelled with the run${attemptsNote(call)}`}
      </>
    );
  } else if (call.state === 'failed' || call.state === 'stopped') {
    parts = (
      <>
        <span class="badge bad">{call.state === 'failed' ? 'failed' : 'no answer'}</span>
        {` Call ${number} to ${where}`}
        {call.error ? (
          <>
            {': '}
            <code>{call.error.code}</code>
            {` ${call.error.message}`}
          </>
        ) : (
          ': the run ended before the model answered'
        )}
        {attemptsNote(call)}
      </>
    );
  } else {
    parts = (
      <>
        <span class="badge ok">answered</span>
        {` Call ${number} to ${where}${attemptsNote(call)}`}
      </>
    );
  }
  return (
    <li class={`model-call ${call.state}`} data-state={call.state}>
      {parts}
    </li>
  );
}

function Elapsed({ since }: { since: string }) {
  return <span class="elapsed">{seconds(useNow() - Date.parse(since))}</span>;
}

function Countdown({ until, attempt }: { until: number; attempt: number }) {
  const ms = until - useNow();
  return <span class="countdown">{ms > 0 ? `attempt ${attempt} in ${Math.ceil(ms / 1000)} s` : `attempt ${attempt} sent`}</span>;
}

function attemptsNote(call: ModelCallView): string {
  const attempts = call.attempts ?? call.retries.length + 1;
  const bits = [attempts > 1 ? `${attempts} attempts` : '', call.duration_ms !== undefined ? seconds(call.duration_ms) : ''].filter(Boolean);
  return bits.length > 0 ? ` (${bits.join(', ')})` : '';
}

/** A duration for people: one decimal under ten seconds. */
export function seconds(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '0 s';
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

function countOf(calls: ModelCallView[], state: ModelCallView['state']): number {
  return calls.filter((call) => call.state === state).length;
}
