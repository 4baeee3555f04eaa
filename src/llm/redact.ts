/**
 * Redaction of secrets in text and JSON-like values before they reach events, traces, error
 * messages or output: every occurrence of a known secret value, and the credential part of
 * `Authorization: Bearer …` / `api-key: …` headers, becomes `[redacted]`.
 */

export const REDACTED = '[redacted]';

/** Secrets shorter than this are not searched for (a one-letter "key" would shred every text). */
const MINIMUM_SECRET_LENGTH = 4;

const CREDENTIAL_PATTERN = /\b(authorization|api-key|x-api-key)(["']?\s*[:=]\s*["']?)(bearer\s+)?[^\s"',}]+/gi;
const BEARER_PATTERN = /\bbearer\s+[A-Za-z0-9._~+/=-]{8,}/gi;

/** Replaces each secret value and credential header value in `text`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < MINIMUM_SECRET_LENGTH) continue;
    if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  }
  return result
    .replace(CREDENTIAL_PATTERN, (_match, name: string, separator: string, bearer: string | undefined) => `${name}${separator}${bearer ?? ''}${REDACTED}`)
    .replace(BEARER_PATTERN, `Bearer ${REDACTED}`);
}

/** A deep copy of a JSON-like value with every string redacted and `api_key`-like keys blanked. */
export function redactValue(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return redactSecrets(value, secrets);
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    copy[key] = isCredentialKey(key) ? REDACTED : redactValue(item, secrets, depth + 1);
  }
  return copy;
}

function isCredentialKey(key: string): boolean {
  const lower = key.toLowerCase();
  return lower === 'api_key' || lower === 'apikey' || lower === 'api-key' || lower === 'authorization' || lower === 'x-api-key';
}
