/**
 * What "Test connection" found, in words: connected (models and capabilities), nothing listening
 * (how to start the server), up but refusing this page (CORS, with the fix for the server), or up
 * and failing (the HTTP status and the start of the answer's body).
 */
import { element } from './dom.js';
import { presetById, type ModelSettings } from './model-settings.js';
import type { ProbeOutcome } from './protocol.js';

/** The lines shown for a probe outcome; `origin` is this page's origin (for the CORS fix). */
export function probeReport(outcome: ProbeOutcome, settings: ModelSettings, origin: string): Node[] {
  const preset = presetById(settings.preset);
  const url = settings.api_base || preset.api_base;
  const lines: Node[] = [];
  const diagnosis = outcome.diagnosis ?? (outcome.ok ? 'ok' : outcome.cors_error ? 'cors' : 'http_error');
  if (diagnosis === 'down') {
    lines.push(
      element(
        'p',
        { class: 'bad-text', id: 'probe-down' },
        `Nothing is listening at ${url}: ${outcome.error ?? 'no answer'}.`,
      ),
    );
    lines.push(
      element('p', {}, element('b', {}, 'Start the server: '), preset.start_hint || presetById('custom').start_hint),
    );
    return lines;
  }
  if (diagnosis === 'cors') {
    lines.push(
      element(
        'p',
        { class: 'bad-text', id: 'cors-error' },
        `The server at ${url} is running, but the browser blocked the request (CORS): the server does not allow this page (${origin}) to call it.`,
      ),
    );
    lines.push(element('p', {}, element('b', {}, 'Fix: '), preset.cors_fix || presetById('custom').cors_fix));
    return lines;
  }
  if (outcome.models.length > 0 || outcome.ok) {
    lines.push(
      element(
        'p',
        { class: outcome.ok ? 'ok-text' : 'note' },
        `${outcome.ok ? 'Connected' : 'The server answers'}: ${outcome.models.length} model${outcome.models.length === 1 ? '' : 's'} (${outcome.models.slice(0, 6).join(', ') || 'none listed'}).`,
      ),
    );
  } else if (outcome.error) {
    lines.push(element('p', { class: 'bad-text', id: 'models-error' }, `Listing the models failed: ${outcome.error}.`));
  }
  const chat = outcome.chat;
  if (chat && !chat.ok) {
    lines.push(
      element(
        'div',
        { class: 'chat-error', id: 'chat-error' },
        element(
          'p',
          { class: 'bad-text' },
          `A chat completion failed${chat.model ? ` (model ${chat.model})` : ''}: ${chat.status !== undefined ? `HTTP ${chat.status}` : (chat.error ?? 'no answer')}.`,
        ),
        chat.error && chat.status !== undefined ? element('p', { class: 'note' }, chat.error) : null,
        chat.body ? element('pre', { class: 'error-body', 'aria-label': "The server's answer" }, chat.body) : null,
        element('p', { class: 'note' }, chatAdvice(chat.status)),
      ),
    );
  }
  const capabilities = Object.entries(outcome.capabilities).filter(
    ([, value]) => typeof value === 'boolean' || value === null,
  );
  if (outcome.ok && capabilities.length > 0) {
    lines.push(
      element(
        'ul',
        { class: 'capabilities', 'aria-label': 'What the server can do' },
        ...capabilities.map(([name, value]) =>
          element(
            'li',
            {},
            element(
              'span',
              { class: `badge ${value === null ? '' : value ? 'ok' : 'bad'}` },
              value === null ? 'not tested' : value ? 'yes' : 'no',
            ),
            ` ${name.replace(/_/g, ' ')}`,
          ),
        ),
      ),
    );
  }
  const facts = serverFacts(outcome.capabilities);
  if (outcome.ok && facts !== '') lines.push(element('p', { class: 'server-facts' }, facts));
  if (outcome.ok) for (const advice of new Set(outcome.advice)) lines.push(element('p', { class: 'note' }, advice));
  return lines;
}

/** "Server: llama.cpp · context 4096 tokens · tool calls as text", from what the probe found. */
function serverFacts(capabilities: Record<string, unknown>): string {
  const parts: string[] = [];
  const names: Record<string, string> = {
    ollama: 'Ollama',
    llamacpp: 'llama.cpp',
    vllm: 'vLLM',
    lmstudio: 'LM Studio',
  };
  if (typeof capabilities.server === 'string' && capabilities.server !== 'unknown')
    parts.push(`Server: ${names[capabilities.server] ?? capabilities.server}`);
  if (typeof capabilities.context_size === 'number') parts.push(`context ${capabilities.context_size} tokens`);
  if (capabilities.tool_calls === 'text') parts.push('tool calls arrive as text (read by tea-edge)');
  if (capabilities.reasoning === 'think_tags') parts.push('thinking arrives as <think> tags (taken out of answers)');
  else if (capabilities.reasoning === 'field') parts.push('thinking arrives apart from the answer');
  const line = parts.join(' · ');
  return line.charAt(0).toUpperCase() + line.slice(1);
}

function chatAdvice(status: number | undefined): string {
  if (status === 401 || status === 403) return 'The server refused the key: check the API key.';
  if (status === 404) return 'Not found: check that the URL ends in /v1 and that the model name exists on the server.';
  if (status === 400 || status === 422) return 'The server did not accept the request: check the model name.';
  if (status !== undefined && status >= 500)
    return 'The server failed while answering: its own log usually says why (model not loaded, out of memory).';
  return "Check the URL, the model name and the server's log.";
}
