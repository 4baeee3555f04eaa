/**
 * Explains why `fetch` threw before any response: refused connection, unknown host, reset, or, in
 * a browser page or web worker calling another origin, a probable CORS refusal (the browser only
 * says "Failed to fetch"). The CORS message carries the fix for Ollama and LM Studio.
 */
import type { AgentError } from '../core/agent-error.js';
import { unavailableError } from './llm-errors.js';
import { messageOf } from '../util/message-of.js';

/** Browsers' wording for a network failure they will not explain (Chromium, Firefox, Safari). */
const OPAQUE_FAILURE = /failed to fetch|networkerror when attempting to fetch|load failed|network request failed/i;

/** The LLM_UNAVAILABLE error for a failed fetch to `url`. */
export function describeFetchFailure(error: unknown, url: string): AgentError {
  const message = messageOf(error);
  const cause = error instanceof Error ? (error as { cause?: unknown }).cause : undefined;
  const causeCode = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  const pageOrigin = currentPageOrigin();
  if (pageOrigin !== undefined && OPAQUE_FAILURE.test(message) && originOf(url) !== pageOrigin) {
    return unavailableError(
      url,
      `the browser refused the request; most likely the server does not allow cross-origin calls from ${pageOrigin} (CORS), ` +
        "or it is not running. For Ollama, restart it with OLLAMA_ORIGINS=* (or set OLLAMA_ORIGINS to this page's origin); " +
        'for LM Studio, turn on "Enable CORS" in the Developer/server settings; other servers need to answer OPTIONS ' +
        'and allow the content-type and authorization headers.',
      { probable_cors: true, page_origin: pageOrigin },
    );
  }
  const reason = typeof causeCode === 'string' ? `${causeCode} (${message})` : message;
  return unavailableError(url, reason, typeof causeCode === 'string' ? { cause_code: causeCode } : {});
}

/** The origin of the page or worker we run in; undefined outside browsers (Node, Workers, Deno). */
function currentPageOrigin(): string | undefined {
  const location = (globalThis as { location?: { origin?: unknown; protocol?: unknown } }).location;
  if (location === undefined || typeof location.origin !== 'string') return undefined;
  if (location.protocol !== 'http:' && location.protocol !== 'https:') return undefined;
  return location.origin;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
