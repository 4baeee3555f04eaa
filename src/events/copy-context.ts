/**
 * The state one sanitising walk works with (sanitize-walk.ts; redact.ts copies, sanitized-size.ts measures) and the
 * rules both apply to every key and string: which keys are credentials or prototype keys, how a
 * secret or a `Bearer`/`Basic` credential in text is redacted, the size bounds kept while copying.
 */
import { FORBIDDEN_KEYS } from '../util/forbidden-keys.js';
import { redactText } from '../util/redact-text.js';

export { REDACTED, redactText } from '../util/redact-text.js';
export const DEFAULT_MAX_EVENT_BYTES = 64 * 1024;

/** Key names whose values are credentials (compared lower-case with `-` and `_` removed). */
const CREDENTIAL_KEYS: ReadonlySet<string> = new Set([
  'authorization',
  'proxyauthorization',
  'apikey',
  'xapikey',
  'xgoogapikey',
  'cookie',
  'setcookie',
]);
const MIN_SECRET_LENGTH = 4;
const NO_SECRETS: readonly string[] = [];

export interface SanitizeOptions {
  /** Secret values (API keys, tokens) to redact wherever they appear. */
  secrets?: readonly string[];
  /** Per-event cap in bytes (UTF-8 of the JSON); default 64 KiB. */
  maxEventBytes?: number;
  /** More key names to redact, besides the credential names above. */
  redactKeys?: readonly string[];
  /** Deepest nesting kept; default 64. */
  maxDepth?: number;
}

export interface CopyContext {
  secrets: readonly string[];
  redactKeys: ReadonlySet<string>;
  /** Shortest and longest redacted or dropped key, so most keys are passed by length alone. */
  shortestKey: number;
  longestKey: number;
  maxDepth: number;
  /** The objects being copied, outermost first (cycle detection; shallow, so an array is fastest). */
  ancestors: object[];
  /** An upper bound of the copy's JSON size in bytes, kept while copying. */
  sizeBound: number;
  /**
   * A lower bound of the bytes of the copy's JSON that are not string content (brackets, keys,
   * quotes, numbers), counted for what is already in the copy.
   */
  floor: number;
  /**
   * When `floor` passes this, copying stops: the event is over the cap whatever its strings, so it
   * will be summarised, and the copy made so far is all the summary's preview needs.
   */
  stopAt: number;
  /**
   * The depth of the object whose fields each have their own `floor` (an event's data, at 1; -1
   * in plain value copies): a field whose copy stops early is too large for any event on its own
   * and is replaced by its summary there, the other fields kept.
   */
  fieldDepth: number;
  /** The cap, for the summaries' previews. */
  maxBytes: number;
  /** Fields summarised by this copy, and how many bytes more the originals take than the summaries. */
  summaries: number;
  grownBy: number;
  /** Keys already classified (redacted or not); kept across the events of one sanitiser. */
  keyVerdicts: Map<string, KeyVerdict>;
  /** `"key":` sizes already counted by `sanitizedBytes` (the same few keys repeat thousands of times). */
  keyBytes: Map<string, number>;
  /** Exact sizes of large subtrees, for the caller to keep between events (`SizeMemo`). */
  sizeMemo: SizeMemo | undefined;
  /** Markers (`[circular]`, `[depth limit]`, `[unserialisable]`) counted so far: a subtree that made one depends on where it sits. */
  markers: number;
  /**
   * Share what needs no change instead of copying it (`sanitizeValue(…, share)`): a plain object or
   * list whose copy would equal it is returned as it is. Never with `stopAt` (a stopped copy is a prefix).
   */
  share: boolean;
}

/** Classified keys remembered per sanitiser; past this, keys are classified each time. */
export const MAX_KEY_VERDICTS = 4096;

function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

/**
 * Exact sizes of large values measured for an event's summary, by object and depth, for the next
 * events to reuse. Only for values nobody changes in between: the engine keeps one from a node's
 * `node_end` to the run's `done` (the same final state), and drops it when anything else runs.
 */
export type SizeMemo = WeakMap<object, { bytes: number; depth: number }>;

export function createContext(options: SanitizeOptions): CopyContext {
  let secrets = NO_SECRETS;
  if (options.secrets !== undefined && options.secrets.length > 0) {
    // A secret with quotes, backslashes or control characters is also looked for JSON-escaped, as
    // a message quoting a value (src/util/cut-text.ts quoteText) holds it.
    secrets = [
      ...new Set(
        options.secrets
          .filter((secret) => typeof secret === 'string' && secret.length >= MIN_SECRET_LENGTH)
          .flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]),
      ),
    ].sort((left, right) => right.length - left.length);
  }
  let redactKeys = CREDENTIAL_KEYS;
  if (options.redactKeys !== undefined && options.redactKeys.length > 0) {
    redactKeys = new Set([...CREDENTIAL_KEYS, ...options.redactKeys.map(normaliseKey)]);
  }
  let shortestKey = Infinity;
  let longestKey = 0;
  for (const key of redactKeys) {
    shortestKey = Math.min(shortestKey, key.length);
    longestKey = Math.max(longestKey, key.length + 4);
  }
  for (const key of FORBIDDEN_KEYS) {
    shortestKey = Math.min(shortestKey, key.length);
    longestKey = Math.max(longestKey, key.length);
  }
  const maxBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  return {
    secrets,
    redactKeys,
    shortestKey,
    longestKey,
    maxDepth: options.maxDepth ?? 64,
    ancestors: [],
    sizeBound: 0,
    floor: 0,
    stopAt: Infinity,
    fieldDepth: -1,
    maxBytes,
    summaries: 0,
    grownBy: 0,
    keyVerdicts: new Map(),
    keyBytes: new Map(),
    sizeMemo: undefined,
    markers: 0,
    share: false,
  };
}

/**
 * Below this cap, copies of events are never stopped early: a preview needs the copy to hold more
 * than its own size plus one closing bracket per level (see `stopAt`).
 */
const MIN_EARLY_STOP_BYTES = 1024;

/** A context for sanitising events: copies stop early once an event is sure to be summarised. */
export function createEventContext(options: SanitizeOptions): CopyContext {
  const context = createContext(options);
  if (context.maxBytes >= MIN_EARLY_STOP_BYTES) {
    context.stopAt = context.maxBytes;
    context.fieldDepth = 1;
  }
  return context;
}

/** Clears what one copy leaves in a reused context. */
export function resetContext(context: CopyContext): void {
  // Copies pop what they push, so `ancestors` is empty unless a copy threw.
  if (context.ancestors.length !== 0) context.ancestors.length = 0;
  context.sizeBound = 0;
  context.floor = 0;
  context.summaries = 0;
  context.grownBy = 0;
  context.sizeMemo = undefined;
}

/** True for a key whose value is a credential. */
export function isRedactedKey(key: string, context: CopyContext): boolean {
  return keyVerdict(key, context) === KeyVerdict.Redact;
}

export enum KeyVerdict {
  Keep,
  /** A credential name: its value becomes `[REDACTED]`. */
  Redact,
  /** `__proto__`, `constructor`, `prototype`: left out. */
  Drop,
}

/** What happens to a key: one length check for most keys, one cached lookup for the rest. */
export function keyVerdict(key: string, context: CopyContext): KeyVerdict {
  if (key.length < context.shortestKey || key.length > context.longestKey) return KeyVerdict.Keep;
  let verdict = context.keyVerdicts.get(key);
  if (verdict !== undefined) return verdict;
  verdict = FORBIDDEN_KEYS.has(key)
    ? KeyVerdict.Drop
    : context.redactKeys.has(normaliseKey(key))
      ? KeyVerdict.Redact
      : KeyVerdict.Keep;
  if (context.keyVerdicts.size < MAX_KEY_VERDICTS) context.keyVerdicts.set(key, verdict);
  return verdict;
}

export function redactString(text: string, context: CopyContext): string {
  return redactText(text, context.secrets);
}

/** A string's JSON size is at most 6 bytes per UTF-16 unit (`\u00XX` escapes) plus quotes. */
export function stringBound(text: string): number {
  return text.length * 6 + 3;
}
