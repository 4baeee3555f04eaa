/**
 * The one reader of request bodies, for every route (the runs API, /mcp). The request must say
 * `Content-Type: application/json`, even with an empty body: that is what makes a browser send a
 * CORS preflight before a cross-origin POST (a form or `text/plain` body does not), so a page of
 * another origin cannot start or resume a run (415 UNSUPPORTED_MEDIA_TYPE otherwise). Its size is
 * held by the app's body limit (a middleware on every route, before any route reads); its nesting
 * is checked here against MAX_BODY_DEPTH before it is parsed: a body nested deeper is 400
 * INVALID_PARAMS, never a stack overflow in whatever walks it later (a 500).
 * An empty body is `{}`; anything that is not a JSON object is INVALID_PARAMS, and dangerous keys
 * never reach the engine (JSON.parse creates `__proto__` as an own property, which the engine's
 * merges skip). A key the route does not know is INVALID_PARAMS naming the nearest known one: a
 * typo such as `inputs` must not start a run with no input.
 */
import { httpError } from './error-status.js';
import { isPlainObject } from '../src/util/plain-object.js';
import { quoted, suggestionFor } from '../src/util/suggest.js';
import { nestingDepth } from '../src/util/untrusted-json.js';
import { quoteText } from '../src/util/cut-text.js';

/**
 * Deepest nesting of a request body. A run's state is refused deeper than 128 levels (with the
 * path, STATE_INVALID); the envelopes around it (`{input: …}`, JSON-RPC `params.arguments`) add
 * at most three, so any body the engine could take passes, and the engine names the place.
 */
export const MAX_BODY_DEPTH = 132;

/** True for `application/json`, with or without parameters (`; charset=utf-8`). */
export function isJsonContentType(header: string | undefined | null): boolean {
  return (header ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * The request's JSON value (undefined for an empty body), read under the depth cap:
 * UNSUPPORTED_MEDIA_TYPE or INVALID_PARAMS (`details.reason` `depth` or `syntax`) otherwise.
 */
export async function readJsonValue(request: Request): Promise<unknown> {
  const type = request.headers.get('content-type');
  if (!isJsonContentType(type)) {
    throw httpError(
      'UNSUPPORTED_MEDIA_TYPE',
      `the request body must be sent as Content-Type: application/json (got ${quoteText(type ?? 'none', 100)})`,
    );
  }
  const text = await request.text();
  if (text.trim() === '') return undefined;
  const depth = nestingDepth(text);
  if (depth > MAX_BODY_DEPTH) {
    throw httpError(
      'INVALID_PARAMS',
      `the request body nests ${depth} levels deep; at most ${MAX_BODY_DEPTH} are accepted`,
      { details: { reason: 'depth', depth, max_depth: MAX_BODY_DEPTH } },
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw httpError('INVALID_PARAMS', 'the request body is not valid JSON', { details: { reason: 'syntax' } });
  }
}

/** The request's JSON object body, whose keys must all be among `keys` (the route's). */
export async function readJsonBody(request: Request, keys: readonly string[]): Promise<Record<string, unknown>> {
  const value = await readJsonValue(request);
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw httpError('INVALID_PARAMS', 'the request body must be a JSON object');
  for (const key of Object.keys(value)) {
    if (keys.includes(key)) continue;
    const known = keys.length === 0 ? '; this request takes an empty object' : suggestionFor(key, keys);
    throw httpError('INVALID_PARAMS', `the request body has no key ${quoted(key)}${known}`, { field: key });
  }
  return value;
}
