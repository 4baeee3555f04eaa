/** For back-ends with a value-size limit (Workers KV, Deno KV): cutting text into sized pieces. */

/** Splits text into pieces of at most `maxBytes` UTF-8 bytes, never inside a character. */
export function splitUtf8(text: string, maxBytes: number): string[] {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return [text];
  const decoder = new TextDecoder();
  const pieces: string[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(start + maxBytes, bytes.length);
    // Back off to a character boundary: UTF-8 continuation bytes look like 0b10xxxxxx.
    while (end < bytes.length && end > start && (bytes[end]! & 0xc0) === 0x80) end -= 1;
    pieces.push(decoder.decode(bytes.subarray(start, end)));
    start = end;
  }
  return pieces;
}
