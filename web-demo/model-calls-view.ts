/**
 * The model calls of a run in the live view: a call still waiting shows a spinner, how long it
 * has waited and, after a failed attempt, the countdown to the retry; a failed call shows its
 * error and attempts. Answered calls without retries are only counted, so a long run stays
 * readable. `tickCalls` refreshes the clocks in place between renders.
 */
import { element } from './dom.js';
import type { ModelCallView, RunSummary } from './run-summary.js';

/**
 * The notable calls (waiting, failed, retried) plus the counts; null when every call was simply
 * answered (the status line already counts them).
 */
export function modelCallsList(summary: RunSummary, now = Date.now()): HTMLElement | null {
  const notable = summary.calls.map((call, index) => ({ call, index })).filter(({ call }) => call.state !== 'answered' || call.retries.length > 0);
  if (notable.length === 0) return null;
  const counts: [string, number][] = [
    ['answered', countOf(summary.calls, 'answered')],
    ['failed', countOf(summary.calls, 'failed') + countOf(summary.calls, 'stopped')],
    ['cancelled', countOf(summary.calls, 'cancelled')],
    ['waiting', countOf(summary.calls, 'waiting')],
  ];
  const total = `${summary.calls.length} model call${summary.calls.length === 1 ? '' : 's'}`;
  return element(
    'div',
    { class: 'model-calls' },
    element('p', { class: 'note', id: 'model-calls-count' }, `${total}: ${counts.filter(([, count]) => count > 0).map(([label, count]) => `${count} ${label}`).join(', ')}.`),
    element('ol', { class: 'calls', id: 'model-calls' }, ...notable.map(({ call, index }) => callItem(call, index + 1, now))),
  );
}

/** Updates the elapsed times and retry countdowns under `root` (no re-render). */
export function tickCalls(root: ParentNode, now = Date.now()): boolean {
  let live = false;
  for (const span of root.querySelectorAll<HTMLElement>('[data-since]')) {
    span.textContent = seconds(now - Date.parse(span.dataset.since ?? ''));
    live = true;
  }
  for (const span of root.querySelectorAll<HTMLElement>('[data-until]')) {
    span.textContent = countdown(Date.parse(span.dataset.until ?? '') - now, Number(span.dataset.attempt));
    live = true;
  }
  return live;
}

function callItem(call: ModelCallView, number: number, now: number): HTMLElement {
  const where = [call.model ? `${call.model}` : 'model', call.node ? `in ${call.node}` : '', call.label ? `(${call.label})` : ''].filter(Boolean).join(' ');
  const parts: (Node | string | null)[] = [];
  if (call.state === 'waiting') {
    parts.push(element('span', { class: 'spinner', 'aria-hidden': 'true' }), ` Call ${number} to ${where}: running for `, element('span', { class: 'elapsed', 'data-since': call.started }, seconds(now - Date.parse(call.started))));
    const retry = call.retries[call.retries.length - 1];
    if (retry) {
      const until = new Date(Date.parse(retry.at) + retry.delay_ms).toISOString();
      parts.push(' · attempt ', String(retry.attempt - 1), ' failed with ', element('code', {}, retry.code), ' · ', element('span', { class: 'countdown', 'data-until': until, 'data-attempt': String(retry.attempt) }, countdown(Date.parse(until) - now, retry.attempt)));
    }
  } else if (call.state === 'cancelled') {
    parts.push(element('span', { class: 'badge' }, 'cancelled'), ` Call ${number} to ${where}: cancelled with the run`, attemptsNote(call));
  } else if (call.state === 'failed' || call.state === 'stopped') {
    parts.push(element('span', { class: 'badge bad' }, call.state === 'failed' ? 'failed' : 'no answer'), ` Call ${number} to ${where}`);
    if (call.error) parts.push(': ', element('code', {}, call.error.code), ` ${call.error.message}`);
    else parts.push(': the run ended before the model answered');
    parts.push(attemptsNote(call));
  } else {
    parts.push(element('span', { class: 'badge ok' }, 'answered'), ` Call ${number} to ${where}`, attemptsNote(call));
  }
  return element('li', { class: `model-call ${call.state}`, 'data-state': call.state }, ...parts);
}

function attemptsNote(call: ModelCallView): string {
  const attempts = call.attempts ?? call.retries.length + 1;
  const bits = [attempts > 1 ? `${attempts} attempts` : '', call.duration_ms !== undefined ? seconds(call.duration_ms) : ''].filter(Boolean);
  return bits.length > 0 ? ` (${bits.join(', ')})` : '';
}

function countdown(ms: number, attempt: number): string {
  return ms > 0 ? `attempt ${attempt} in ${Math.ceil(ms / 1000)} s` : `attempt ${attempt} sent`;
}

function seconds(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '0 s';
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

function countOf(calls: ModelCallView[], state: ModelCallView['state']): number {
  return calls.filter((call) => call.state === state).length;
}
