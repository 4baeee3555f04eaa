/**
 * `http.get {url}` → `{status, body, content_type, truncated, url}`. Denied unless
 * `settings.http.allow` lists the URL's exact origin (url-policy.ts). Redirects are followed by
 * hand (`redirect: 'manual'`), each target re-checked, at most 3. The body is read up to a byte
 * cap (`settings.http.max_bytes`, default 256 KiB) and the request has a timeout
 * (`settings.http.timeout_ms`, default 10 s). No cookies, no credentials, GET only.
 */
import { AgentError } from '../core/agent-error.js';
import type { ActionContext, ActionDefinition } from '../core/action.js';
import { checkUrl } from './url-policy.js';
import { messageOf } from '../util/message-of.js';
import { isPlainObject } from '../util/plain-object.js';
import { cutText } from '../util/cut-text.js';

const MAX_REDIRECTS = 3;
const DEFAULT_MAX_BYTES = 256 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;

/** `settings.http` as the tool reads it. */
export interface HttpSettings {
  allow: string[];
  maxBytes: number;
  timeoutMs: number;
}

/** Reads `settings.http` ({allow, max_bytes, timeout_ms}) with defaults; missing means deny all. */
export function readHttpSettings(settings: Readonly<Record<string, unknown>>): HttpSettings {
  const http = settings['http'];
  const record = isPlainObject(http) ? http : {};
  const allow = Array.isArray(record['allow'])
    ? record['allow'].filter((entry): entry is string => typeof entry === 'string')
    : [];
  const maxBytes = positiveNumber(record['max_bytes'], DEFAULT_MAX_BYTES);
  const timeoutMs = positiveNumber(record['timeout_ms'], DEFAULT_TIMEOUT_MS);
  return { allow, maxBytes, timeoutMs };
}

/** The `http.get` tool. */
export function httpGet(): ActionDefinition<{ url?: unknown }> {
  return {
    name: 'http.get',
    description: 'Fetch a URL with GET (only hosts the agent allows). Returns {status, body}.',
    parameters: {
      type: 'object',
      properties: { url: { type: 'string', maxLength: 2048, description: 'Absolute http(s) URL' } },
      required: ['url'],
      additionalProperties: false,
    },
    sideEffects: false,
    run: (params, context) => fetchAllowed(params.url, context),
  };
}

/** What a tool built on `http.get`'s policy may change: its name in messages, headers, tighter caps. */
export interface FetchAllowedOptions {
  tool?: string;
  headers?: Record<string, string>;
  /** Lower than settings.http.max_bytes / timeout_ms only (a tool never widens the agent's caps). */
  maxBytes?: number;
  timeoutMs?: number;
}

/**
 * GET under the `http.get` policy (allow-list, internal addresses, manual redirects re-checked,
 * byte cap, timeout). Returns {status, body, content_type, truncated, url}. `web.scrape` and
 * `web.search` fetch through it.
 */
export async function fetchAllowed(
  url: unknown,
  context: ActionContext,
  options: FetchAllowedOptions = {},
): Promise<Record<string, unknown>> {
  const tool = options.tool ?? 'http.get';
  if (typeof url !== 'string') throw new AgentError('INVALID_PARAMS', `${tool} needs a string "url"`, { field: 'url' });
  const agentSettings = readHttpSettings(context.settings);
  const settings: HttpSettings = {
    allow: agentSettings.allow,
    maxBytes: Math.min(agentSettings.maxBytes, options.maxBytes ?? Number.POSITIVE_INFINITY),
    timeoutMs: Math.min(agentSettings.timeoutMs, options.timeoutMs ?? Number.POSITIVE_INFINITY),
  };
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  context.signal.addEventListener('abort', onAbort);
  const timer = setTimeout(() => controller.abort(), settings.timeoutMs);
  try {
    let current = url;
    let firstOrigin: string | undefined;
    for (let redirects = 0; ; redirects++) {
      const decision = checkUrl(current, settings.allow);
      if (!decision.allowed) {
        throw new AgentError('FORBIDDEN', `${tool} denied: ${decision.reason}`, {
          field: 'url',
          details: { url: cutText(current, 500) },
        });
      }
      firstOrigin ??= decision.url.origin;
      // A tool's own headers (web.search's key) never follow a redirect to another origin.
      const extra = decision.url.origin === firstOrigin ? options.headers : undefined;
      let response: Response;
      try {
        response = await fetch(decision.url.href, {
          method: 'GET',
          redirect: 'manual',
          signal: controller.signal,
          headers: { accept: '*/*', ...extra },
        });
      } catch (error) {
        throw requestFailure(error, context, controller, settings.timeoutMs, '', tool, decision.url.href);
      }
      if (response.type === 'opaqueredirect') {
        throw new AgentError(
          'ACTION_FAILED',
          `${tool}: the server redirected, and this runtime cannot follow redirects manually`,
        );
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location !== null) {
        await response.body?.cancel();
        if (redirects >= MAX_REDIRECTS)
          throw new AgentError('ACTION_FAILED', `${tool}: more than ${MAX_REDIRECTS} redirects`);
        current = new URL(location, decision.url).href;
        continue;
      }
      let body: { text: string; truncated: boolean };
      try {
        body = await readCapped(response, settings.maxBytes);
      } catch (error) {
        // The timeout also covers the body: a server that stalls mid-body is a tool error the
        // model can react to, not a cancelled run (only the run's own signal cancels).
        throw requestFailure(
          error,
          context,
          controller,
          settings.timeoutMs,
          'while reading the body',
          tool,
          decision.url.href,
        );
      }
      const { text, truncated } = body;
      return {
        status: response.status,
        body: text,
        content_type: response.headers.get('content-type'),
        truncated,
        url: decision.url.href,
      };
    }
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener('abort', onAbort);
  }
}

/**
 * The typed error for a failed request or body read: CANCELLED only when the run itself was
 * cancelled (or ran out of time); the tool's own timeout and network failures are ACTION_FAILED,
 * naming the URL and the cause (an unknown host, a refused connection: what `fetch` keeps in
 * `cause`, its own message being only "fetch failed").
 */
function requestFailure(
  error: unknown,
  context: ActionContext,
  controller: AbortController,
  timeoutMs: number,
  phase: string,
  tool: string,
  url: string,
): AgentError {
  if (context.signal.aborted) return new AgentError('CANCELLED', 'the run was cancelled');
  const where = phase === '' ? '' : ` ${phase}`;
  const shown = cutText(url, 500);
  if (controller.signal.aborted)
    return new AgentError('ACTION_FAILED', `${tool} ${shown} timed out after ${timeoutMs} ms${where}`, {
      field: 'url',
      details: { url: shown, timeout_ms: timeoutMs },
    });
  const cause = error instanceof Error ? (error as { cause?: unknown }).cause : undefined;
  const causeText =
    cause instanceof Error ||
    (typeof cause === 'object' && cause !== null && typeof (cause as { message?: unknown }).message === 'string')
      ? (cause as { message: string }).message
      : undefined;
  const reason = causeText !== undefined && causeText !== '' ? `${messageOf(error)}: ${causeText}` : messageOf(error);
  return new AgentError('ACTION_FAILED', `${tool} could not fetch ${shown}${where}: ${reason}`, {
    field: 'url',
    details: { url: shown },
  });
}

/** Reads at most `maxBytes` of the body, then cancels the rest. */
async function readCapped(response: Response, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  if (response.body === null) return { text: '', truncated: false };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let received = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - received;
    if (value.byteLength > room) {
      text += decoder.decode(value.subarray(0, room), { stream: true });
      truncated = true;
      await reader.cancel();
      break;
    }
    received += value.byteLength;
    text += decoder.decode(value, { stream: true });
  }
  text += decoder.decode();
  return { text, truncated };
}

function positiveNumber(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}
