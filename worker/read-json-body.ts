/**
 * Reads a request body as a JSON object (after the body limit has run). An empty body is `{}`;
 * anything that is not a JSON object is INVALID_PARAMS, and dangerous keys never reach the
 * engine (JSON.parse creates `__proto__` as an own property, which the engine's merges skip).
 */
import { httpError } from './error-status.js';

export async function readJsonBody(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw httpError('INVALID_PARAMS', 'the request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw httpError('INVALID_PARAMS', 'the request body must be a JSON object');
  return value as Record<string, unknown>;
}
