/**
 * Redaction for the model layer, on top of the engine's event sanitizer (src/events/redact.ts) so
 * one rule decides what a secret looks like everywhere: known secret values, `Bearer`/`Basic`
 * credentials in text, and credential-named keys (`api_key`, `authorization`, …) become
 * `[REDACTED]`. Used for error bodies quoted in messages, captured payloads and probe output.
 */
import { REDACTED, sanitizeValue } from '../events/redact.js';

export { REDACTED };

/** `text` with every secret value and credential replaced. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return sanitizeValue(text, { secrets }) as string;
}

/** A redacted, inert JSON copy of `value`. */
export function redactValue(value: unknown, secrets: readonly string[]): unknown {
  return sanitizeValue(value, { secrets });
}
