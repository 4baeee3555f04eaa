/**
 * What a browser can find out about a model server that does not work, beyond "Failed to fetch".
 * A normal (CORS) request that fails says nothing about why; the same URL fetched in `no-cors`
 * mode tells the two causes apart: an opaque answer means something is listening and refusing
 * this page (CORS), a network error means nothing is listening. And a server that lists its
 * models can still fail every chat completion, so one small completion is sent too, and an HTTP
 * error is shown with the start of its body.
 */
import type { ChatProbe } from './protocol.js';

/** How much of an error body is shown. */
export const BODY_LIMIT = 2000;

export type Reachability = { up: true } | { up: false; reason: string };

/** Is anything answering at `url`? A `no-cors` GET: any answer (even opaque) means yes. */
export async function reachable(
  url: string,
  fetchFunction: typeof fetch = fetch,
  timeoutMs = 5000,
): Promise<Reachability> {
  try {
    await fetchFunction(url, {
      mode: 'no-cors',
      cache: 'no-store',
      credentials: 'omit',
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { up: true };
  } catch (error) {
    const name = (error as { name?: unknown })?.name;
    if (name === 'TimeoutError' || name === 'AbortError')
      return { up: false, reason: `no answer within ${Math.round(timeoutMs / 1000)} s` };
    return { up: false, reason: 'the connection was refused (nothing is listening on that port)' };
  }
}

export interface ChatProbeOptions {
  apiBase: string;
  model?: string;
  apiKey?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** Sends one tiny chat completion and says whether a chat completion came back. */
export async function probeChat(options: ChatProbeOptions): Promise<ChatProbe> {
  const fetchFunction =
    options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const url = `${options.apiBase.replace(/\/+$/, '')}/chat/completions`;
  const model = options.model !== undefined && options.model !== '' ? options.model : undefined;
  const hide = (text: string) =>
    options.apiKey !== undefined && options.apiKey.length >= 4 ? text.replaceAll(options.apiKey, '[redacted]') : text;
  const probe: ChatProbe = { ok: false, ...(model !== undefined ? { model } : {}) };
  let response: Response;
  try {
    response = await fetchFunction(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
      body: JSON.stringify({
        ...(model !== undefined ? { model } : {}),
        messages: [{ role: 'user', content: 'Reply with the single word: ok' }],
        max_tokens: 8,
        temperature: 0,
      }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
    });
  } catch (error) {
    const name = (error as { name?: unknown })?.name;
    probe.error =
      name === 'TimeoutError'
        ? `POST ${url} got no answer within ${Math.round((options.timeoutMs ?? 60_000) / 1000)} s`
        : `POST ${url} failed: ${hide(String((error as Error)?.message ?? error))}`;
    return probe;
  }
  probe.status = response.status;
  const body = hide(await readStart(response, BODY_LIMIT));
  if (!response.ok) {
    probe.body = body;
    probe.error = `POST ${url} answered HTTP ${response.status}`;
    return probe;
  }
  if (!isChatCompletion(body)) {
    probe.body = body;
    probe.error = `POST ${url} answered HTTP ${response.status}, but not with a chat completion`;
    return probe;
  }
  probe.ok = true;
  return probe;
}

/** The first `limit` characters of a body, without reading the rest (an error page can be huge). */
export async function readStart(response: Response, limit: number): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length <= limit) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A body cut short still shows what arrived.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return text.length > limit ? `${text.slice(0, limit)}… (cut at ${limit} characters)` : text;
}

function isChatCompletion(body: string): boolean {
  try {
    const value = JSON.parse(body) as { choices?: unknown };
    return Array.isArray(value.choices) && value.choices.length > 0;
  } catch {
    return false;
  }
}
