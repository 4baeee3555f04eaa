/**
 * Reads a response body with a byte cap, so a runaway or hostile server cannot exhaust memory. The
 * read stops (and the connection is cancelled) as soon as the cap is passed.
 */
import { badResponse } from './llm-errors.js';

/** Default cap of a model response body: 8 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** The whole body as text, or LLM_BAD_RESPONSE past `maxBytes`. `onProgress` runs per chunk. */
export async function readCappedBody(response: Response, maxBytes: number, onProgress?: () => void): Promise<string> {
  checkDeclaredLength(response, maxBytes);
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder('utf-8');
  const parts: string[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    onProgress?.();
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join('');
}

/** Refuses a body whose declared Content-Length already exceeds the cap. */
export function checkDeclaredLength(response: Response, maxBytes: number): void {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.body?.cancel().catch(() => undefined);
    throw tooLarge(maxBytes);
  }
}

export function tooLarge(maxBytes: number): ReturnType<typeof badResponse> {
  return badResponse(`the model response is larger than the ${maxBytes}-byte limit`, {
    max_bytes: maxBytes,
    too_large: true,
  });
}
