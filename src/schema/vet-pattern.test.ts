import { describe, expect, it } from 'vitest';
import { vetPattern } from './vet-pattern.js';

const refused = [
  '^(a+)+$', '(a+)+', '(a*b*)*', '(x\\s*\\s*y)*', '(a|a)*', '(a*)*', '(a?)*', '^(\\w+\\s?)*$', '(.*a){9}', '(x+x+)+y', '^(a|aa)+$',
  '(\\d|\\w)+', '(a|ab)*c', '((a+a+)c)*', '(a+b?)*', '^(([a-z])+.)+[A-Z]([a-z])+$', '(a{1,5}){1,5}',
  '^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$',
  '(?:a|)*', '(\\p{L}+\\s)*\\p{L}*x(\\p{L}+)+', '(a+\\b)*', '(a+){2}', '([ab]+a)*', '(\\1a)*(b)',
];
const accepted = [
  '^[a-z]+$', '^\\d{3}-\\d{4}$', '^([a-z]+\\.)*[a-z]+$', '(\\d+,)*\\d+', '^(\\d+\\.){3}\\d+$', '(foo|bar)*',
  '(ab|ac)*', '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$', '^(\\w+\\s)*\\w+$', '(a+b)*', '(ab*)*', '^\\p{Lu}', '^(?:[0-9a-f]{2}:){5}[0-9a-f]{2}$',
  '^\\S+$', '(\\s*,\\s*\\w+)*', '(a*,)*', 'x(?=y)', '^(a+)?$', '[\\u{1F600}-\\u{1F64F}]+', '(\\x41\\u0042)*', '^[\\w.-]+$', '((a+b+)c)*',
];

describe('vetPattern', () => {
  it.each(refused)('refuses catastrophic shape %s', (pattern) => {
    const verdict = vetPattern(pattern);
    expect(verdict.safe).toBe(false);
  });
  it.each(accepted)('accepts safe shape %s', (pattern) => {
    expect(vetPattern(pattern)).toEqual({ safe: true });
  });
  it('refuses invalid regular expressions (u flag) with a reason', () => {
    const verdict = vetPattern('[a-');
    expect(verdict.safe).toBe(false);
    if (!verdict.safe) expect(verdict.reason).toMatch(/invalid/);
    expect(vetPattern('\\q').safe).toBe(false);
  });
  it('refuses over-long and over-nested patterns', () => {
    expect(vetPattern('a'.repeat(5000)).safe).toBe(false);
    expect(vetPattern('('.repeat(80) + 'a' + ')'.repeat(80)).safe).toBe(false);
    expect(vetPattern('a'.repeat(100), { maxLength: 50 }).safe).toBe(false);
  });
});
