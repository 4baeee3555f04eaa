/**
 * The one sanitiser for everything that leaves a run: state and results, checkpoints, HTTP bodies,
 * SSE, stdout and stderr. It applies the rule of redact.ts (known secret values, `Bearer`/`Basic`
 * credentials in text, credential-named keys) in three forms:
 *
 * - `value(v)`: a redacted, inert JSON copy of a value (a checkpoint); `valueShared(v)` the same
 *   without copying what needs no change (a finished run's result);
 * - `text(s)`: a string already serialised (an HTTP body, an SSE `data:` line, a terminal line),
 *   where a secret may also appear JSON-escaped;
 * - `stream()`: a redactor for one stream of text pieces (streamed `answer_chunk`s), which holds
 *   back the end of the text seen so far while it could still be the start of a secret, so a key
 *   split across pieces never reaches the reader, even after the pieces are joined.
 *
 * Redaction matches exact copies. It cannot promise anything about transformed copies (upper-cased,
 * spaced out, reversed, encoded, split across fields): see docs/security.md. Keys are kept out of
 * reach of templates and agent-chosen endpoints instead.
 *
 * @example
 * const outbound = createSanitizer([apiKey]);
 * const body = outbound.text(JSON.stringify(result));
 * const chunks = outbound.stream(); emit(chunks.push(piece)); ... emit(chunks.flush());
 */
import { redactText, sanitizeValue } from './redact.js';

/** Secrets shorter than this are ignored, as in redact.ts (a short value would erase ordinary text). */
const MIN_SECRET_LENGTH = 4;
/** A `Bearer`/`Basic` credential still arriving is held back at most this many characters. */
const MAX_CREDENTIAL_HOLD = 512;
/** Deepest nesting a state or checkpoint copy keeps (state itself is refused deeper than 128). */
const STATE_DEPTH = 256;
const CREDENTIAL_WORDS = ['Bearer', 'Basic'];
const CREDENTIAL_TAIL = /\b(?:Bearer|Basic)(?:\s+[A-Za-z0-9._~+/=-]*)?$/;

export interface Sanitizer {
  /** The secrets redacted (4 characters or more, longest first). */
  readonly secrets: readonly string[];
  /** A redacted, inert JSON copy of `value`. */
  value<T>(value: T): T;
  /**
   * `value(v)` made by sharing what needs no change (a plain object or list that would be copied
   * as it is stays `v`'s own; `v` itself when nothing changes). For a value its owner is done with:
   * a finished run's result, whose state nothing will change any more.
   */
  valueShared<T>(value: T): T;
  /** `text` with every secret, its JSON-escaped form and text credentials replaced. */
  text(text: string): string;
  /** A redactor for one stream of text pieces. */
  stream(): StreamRedactor;
}

export interface StreamRedactor {
  /** The part of the text seen so far that is safe to emit now (may be empty). */
  push(piece: string): string;
  /** The rest, redacted, at the end of the stream. */
  flush(): string;
}

/** Creates the sanitiser for a set of secret values (empty or short values are ignored). */
export function createSanitizer(secrets: ReadonlyArray<string | undefined | null>): Sanitizer {
  const kept = [
    ...new Set(
      secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length >= MIN_SECRET_LENGTH),
    ),
  ].sort((left, right) => right.length - left.length);
  // A secret with quotes, backslashes or control characters appears escaped inside JSON text.
  const textForms = [...new Set(kept.flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]))].sort(
    (left, right) => right.length - left.length,
  );
  return {
    secrets: kept,
    value: <T>(value: T) => sanitizeValue(value, { secrets: kept, maxDepth: STATE_DEPTH }) as T,
    valueShared: <T>(value: T) => sanitizeValue(value, { secrets: kept, maxDepth: STATE_DEPTH }, true) as T,
    text: (text) => redactText(text, textForms),
    stream: () => createStreamRedactor(kept),
  };
}

function createStreamRedactor(secrets: readonly string[]): StreamRedactor {
  let pending = '';
  const prefixes = [...secrets, ...CREDENTIAL_WORDS];
  const longest = prefixes.reduce((length, secret) => Math.max(length, secret.length), 0);
  return {
    push(piece) {
      const raw = pending + piece;
      const cut = safeCut(raw, secrets, prefixes, longest);
      pending = raw.slice(cut);
      return redactText(raw.slice(0, cut), secrets);
    },
    flush() {
      const rest = redactText(pending, secrets);
      pending = '';
      return rest;
    },
  };
}

/**
 * Where the raw text can be cut so that the part before it is safe to redact and emit: before any
 * ending that could still become a secret or a credential, and never inside a whole secret
 * (overlapping secrets could otherwise leave one half on each side).
 */
function safeCut(raw: string, secrets: readonly string[], prefixes: readonly string[], longest: number): number {
  let cut = raw.length - heldLength(raw, prefixes, longest);
  for (let moved = true; moved; ) {
    moved = false;
    for (const secret of secrets) {
      const at = raw.indexOf(secret, Math.max(0, cut - secret.length + 1));
      if (at !== -1 && at < cut) {
        cut = at;
        moved = true;
      }
    }
  }
  return cut;
}

/**
 * How many characters at the end of `text` must wait: the longest ending that is the start of a
 * secret (or of `Bearer`/`Basic`), or a `Bearer <token>` whose token may go on.
 */
function heldLength(text: string, prefixes: readonly string[], longest: number): number {
  const window = text.slice(-MAX_CREDENTIAL_HOLD);
  const credential = CREDENTIAL_TAIL.exec(window);
  let held = credential === null ? 0 : window.length - credential.index;
  for (let start = Math.max(0, text.length - longest + 1); start < text.length - held; start++) {
    const ending = text.slice(start);
    if (prefixes.some((prefix) => prefix.length > ending.length && prefix.startsWith(ending))) {
      held = text.length - start;
      break;
    }
  }
  return held;
}
