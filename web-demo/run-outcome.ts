/**
 * How a run ended, told so it cannot be misread: a failed run gets a red headline with the error
 * code, the node and the message; a cancelled one a grey headline naming the node it stopped in;
 * a completed run whose model calls failed along the way says so instead of looking clean.
 */
import { element } from './dom.js';
import { failedCalls, type RunSummary } from './run-summary.js';

/** The headline under the status line, or null while running (and for a clean paused run). */
export function outcomeHeadline(summary: RunSummary): HTMLElement | null {
  if (summary.status === 'failed') {
    const error = summary.error;
    const node = error?.node ?? summary.failed_node;
    const message = error?.message ?? '';
    const field = error?.field;
    return element(
      'div',
      { class: 'run-outcome failed', id: 'run-outcome', role: 'alert', 'data-outcome': 'failed' },
      element(
        'p',
        { class: 'outcome-title' },
        element('strong', {}, 'Run failed'),
        error ? ' with ' : '',
        error ? element('code', { class: 'error-code' }, error.code) : null,
        node ? ' in node ' : '',
        node ? element('code', { class: 'error-node' }, node) : null,
        field ? ', field ' : '',
        field ? element('code', { class: 'error-field' }, field) : null,
      ),
      message ? element('p', { class: 'outcome-message' }, message) : null,
      summary.stop_reason && summary.stop_reason !== 'error'
        ? element('p', { class: 'outcome-detail' }, `Stopped by the ${summary.stop_reason} budget.`)
        : null,
      error?.code === 'LLM_UNAVAILABLE' ? unavailableAdvice(summary) : null,
      callsNote(summary),
    );
  }
  if (summary.status === 'cancelled') {
    const node = summary.cancelled_node;
    return element(
      'div',
      { class: 'run-outcome cancelled', id: 'run-outcome', 'data-outcome': 'cancelled' },
      element(
        'p',
        { class: 'outcome-title' },
        element('strong', {}, 'Run cancelled'),
        node ? ' in node ' : '',
        node ? element('code', { class: 'error-node' }, node) : null,
      ),
      summary.error?.message && summary.error.code !== 'CANCELLED'
        ? element('p', { class: 'outcome-message' }, summary.error.message)
        : null,
    );
  }
  if (summary.status !== 'running' && failedCalls(summary).length > 0) {
    return element(
      'div',
      { class: 'run-outcome warned', id: 'run-outcome', 'data-outcome': `${summary.status}-with-failures` },
      element(
        'p',
        { class: 'outcome-title' },
        element('strong', {}, `Run ${summary.status}`),
        ', but ',
        callsNote(summary),
      ),
    );
  }
  return null;
}

/** One sentence for the screen-reader announcement at the end of a run. */
export function outcomeSentence(summary: RunSummary): string {
  if (summary.status === 'failed') {
    const error = summary.error;
    const node = error?.node ?? summary.failed_node;
    const message = error?.message ?? '';
    return `Run failed${error ? `: ${error.code}` : ''}${node ? ` in node ${node}` : ''}${message ? `. ${message}` : '.'}`;
  }
  const failed = failedCalls(summary).length;
  const suffix = summary.stop_reason && summary.stop_reason !== summary.status ? ` (${summary.stop_reason})` : '';
  return `Run ${summary.status}${suffix}${failed > 0 ? `, ${failed} model call${failed === 1 ? '' : 's'} failed` : ''}.`;
}

/**
 * What to do when the model server was unavailable. A run in the tab used the tab's settings:
 * Test connection probes them and shows the result where the button is. A run on a tea-edge
 * server used the server's settings, which this page cannot test: it says where they are.
 */
function unavailableAdvice(summary: RunSummary): HTMLElement {
  if (document.body.dataset.backend === 'server') {
    const models = modelsOf(summary);
    return element(
      'p',
      { class: 'outcome-detail', id: 'outcome-server-model' },
      `The tea-edge server could not reach its model server${models ? ` (${models})` : ''}. The server's own model settings are used (its --llm-* flags, TEA_LLM_* variables or the agent's settings.llm): run tea-edge probe with them on the server to see what fails.`,
    );
  }
  // The test runs in the settings panel, which shows its result: the page goes there.
  const test = () => {
    document.getElementById('probe-button')?.click();
    const heading = document.getElementById('settings-heading');
    heading?.scrollIntoView({ block: 'start' });
    heading?.focus();
  };
  return element(
    'p',
    { class: 'outcome-detail' },
    element('button', { type: 'button', id: 'outcome-probe', onclick: test }, 'Test connection'),
    " of this tab's model server (its result is shown in Model settings) tells whether it is not running or refuses this page (CORS).",
  );
}

/** The models a run called, as `model (provider)`, comma separated; '' when it called none. */
export function modelsOf(summary: RunSummary): string {
  return [
    ...new Set(
      summary.calls
        .map((call) => (call.provider ? `${call.model ?? 'model'} (${call.provider})` : (call.model ?? '')))
        .filter(Boolean),
    ),
  ].join(', ');
}

function callsNote(summary: RunSummary): HTMLElement | null {
  const failed = failedCalls(summary).length;
  if (failed === 0) return null;
  return element(
    'span',
    { class: 'outcome-calls' },
    `${failed} of ${summary.calls.length} model call${summary.calls.length === 1 ? '' : 's'} failed (see Model calls).`,
  );
}
