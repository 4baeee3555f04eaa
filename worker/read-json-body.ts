/**
 * Reads a request body as a JSON object (after the body limit has run). The request must say
 * `Content-Type: application/json`, even with an empty body: that is what makes a browser send a
 * CORS preflight before a cross-origin POST (a form or `text/plain` body does not), so a page of
 * another origin cannot start or resume a run (415 UNSUPPORTED_MEDIA_TYPE otherwise). An empty
 * body is `{}`; anything that is not a JSON object is INVALID_PARAMS, and dangerous keys never
 * reach the engine (JSON.parse creates `__proto__` as an own property, which the engine's merges
 * skip).
 */
import { httpError } from './error-status.js';
import { isPlainObject } from '../src/util/plain-object.js';

/** True for `application/json`, with or without parameters (`; charset=utf-8`). */
export function isJsonContentType(header: string | undefined | null): boolean {
  return (header ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

export async function readJsonBody(request: Request): Promise<Record<string, unknown>> {
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
  return value as Record<string, unknown>;
}
