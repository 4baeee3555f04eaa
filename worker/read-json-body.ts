/**
 * Reads a request body as a JSON object (after the body limit has run). The request must say
 * `Content-Type: application/json`, even with an empty body: that is what makes a browser send a
 * CORS preflight before a cross-origin POST (a form or `text/plain` body does not), so a page of
 * another origin cannot start or resume a run (415 UNSUPPORTED_MEDIA_TYPE otherwise). An empty
 * body is `{}`; anything that is not a JSON object is INVALID_PARAMS, and dangerous keys never
 * reach the engine (JSON.parse creates `__proto__` as an own property, which the engine's merges
 * skip). A key the route does not know is INVALID_PARAMS naming the nearest known one: a typo such
 * as `inputs` must not start a run with no input.
 */
import { httpError } from './error-status.js';
import { isPlainObject } from '../src/util/plain-object.js';
import { quoted, suggestionFor } from '../src/util/suggest.js';

/** True for `application/json`, with or without parameters (`; charset=utf-8`). */
export function isJsonContentType(header: string | undefined | null): boolean {
  return (header ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** The request's JSON object body, whose keys must all be among `keys` (the route's). */
export async function readJsonBody(request: Request, keys: readonly string[]): Promise<Record<string, unknown>> {
  const type = request.headers.get('content-type');
  if (!isJsonContentType(type)) {
    throw httpError('UNSUPPORTED_MEDIA_TYPE', `the request body must be sent as Content-Type: application/json (got ${JSON.stringify((type ?? 'none').slice(0, 100))})`);
  }
  const text = await request.text();
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw httpError('INVALID_PARAMS', 'the request body is not valid JSON');
  }
  if (!isPlainObject(value)) throw httpError('INVALID_PARAMS', 'the request body must be a JSON object');
  for (const key of Object.keys(value)) {
    if (keys.includes(key)) continue;
    const known = keys.length === 0 ? '; this request takes an empty object' : suggestionFor(key, keys);
    throw httpError('INVALID_PARAMS', `the request body has no key ${quoted(key)}${known}`, { field: key });
  }
  return value;
}
