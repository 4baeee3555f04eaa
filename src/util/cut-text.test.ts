import { describe, expect, it } from 'vitest';
import { createSanitizer } from '../events/outbound.js';
import { sanitizeValue } from '../events/redact.js';
import { cutText, quoteText } from './cut-text.js';

/** 33 characters, as in the finding; no character of it occurs in the padding or the message. */
const SECRET = 'ZQX9wK7vJ2mN4pR6tY8uH3gF5dS1aL0cE';

/** Every prefix of the secret of two characters or more that occurs in `text`. */
function leakedPrefixes(text: string, secret = SECRET): string[] {
  const leaked: string[] = [];
  for (let length = 2; length <= secret.length; length++)
    if (text.includes(secret.slice(0, length))) leaked.push(secret.slice(0, length));
  return leaked;
}

describe('cutText and quoteText', () => {
  it('leave short text as it is and mark a cut with the number of characters cut', () => {
    expect(cutText('short', 10)).toBe('short');
    expect(cutText('abcdefghijklmnopqrstuvwxyz', 16)).toBe('abcd…[+22 chars]');
    for (let max = 14; max < 40; max++) expect(cutText('x'.repeat(200), max).length).toBeLessThanOrEqual(max);
    expect(quoteText('a"bcdefghijklmnop', 14)).toBe('"a\\"…[+15 chars]"');
    expect(cutText(`abc\u{1F600}${'d'.repeat(20)}`, 15)).toBe('abc…[+22 chars]');
  });

  it('a secret straddling the cut at every position: no prefix of it survives redaction, in a value or in JSON text', () => {
    const sanitizer = createSanitizer([SECRET]);
    const max = 80;
    for (let before = 0; before <= max; before++) {
      const value = `${'-'.repeat(before)}${SECRET}/more`;
      const message = `\`path\` ${quoteText(value, max)} is refused: outside the file root`;
      const viaValue = sanitizeValue({ message }, { secrets: [SECRET] }) as { message: string };
      const viaText = sanitizer.text(JSON.stringify({ error: { message } }));
      expect({ before, leaked: leakedPrefixes(viaValue.message) }).toEqual({ before, leaked: [] });
      expect({ before, leaked: leakedPrefixes(viaText) }).toEqual({ before, leaked: [] });
      // What is not part of the secret is kept.
      expect(viaValue.message.startsWith(`\`path\` "${'-'.repeat(Math.min(before, max - 14))}`)).toBe(true);
    }
  });

  it('with the secrets at hand, redacts first and then cuts; a secret with quotes is held in its escaped form too', () => {
    const quoted = 'ab"cd\\ef-quoted-secret';
    for (let before = 0; before <= 30; before++) {
      const value = `${'.'.repeat(before)}${quoted}`;
      const direct = quoteText(value, 30, [quoted]);
      const later = sanitizeValue(quoteText(value, 30), { secrets: [quoted] }) as string;
      for (const text of [direct, later])
        expect({ before, leaked: leakedPrefixes(text, JSON.stringify(quoted).slice(1, -1)) }).toEqual({
          before,
          leaked: [],
        });
    }
  });

  it('a Bearer credential cut short is redacted too', () => {
    const message = `failed: ${cutText(`Authorization: Bearer abc123${'x'.repeat(30)}`, 37)}`;
    expect(sanitizeValue(message, {})).toBe('failed: Authorization: Bearer [REDACTED]…[+33 chars]');
  });

  it('a mark written by hand only makes redaction stricter there', () => {
    expect(
      sanitizeValue(`${SECRET.slice(0, 5)}…[+9 chars] and ${SECRET.slice(0, 5)} alone`, { secrets: [SECRET] }),
    ).toBe(`[REDACTED]…[+9 chars] and ${SECRET.slice(0, 5)} alone`);
  });
});
