/**
 * The shared output parser of the reasoning actions (docs/spec.md#61-output-parsing-shared). A model's text is tried, in
 * order, as: the whole text as JSON → each fenced block (```json or bare ```) → a
 * `<thinking>…</thinking>` block followed by an answer → the first balanced `{…}` that parses
 * (outermost first, strictly then repaired, then nested ones) → light repair (json-repair.ts). `<think>…</think>` blocks of reasoning models are set aside first, by the model client's own rule
 * (src/llm/think-tags.ts), so an answer parses the same whichever path it came by.
 * Failures are values: `{ok: false, error}`, the error carrying the first 500 raw characters.
 */
import { balancedObjects, repairJson } from './json-repair.js';
import { DEFAULT_JSON_LIMITS, parseJsonSafely, type JsonLimits } from '../util/untrusted-json.js';
import { splitThinking } from '../llm/think-tags.js';
import { cutText } from '../util/cut-text.js';

/** Which rule of the chain produced the value. */
export type ParseMethod = 'json' | 'fence' | 'thinking' | 'balanced' | 'repair';

export type ParsedOutput =
  | { ok: true; value: unknown; method: ParseMethod; thinking?: string }
  | { ok: false; error: string; raw: string };

const RAW_PREVIEW_LENGTH = 500;

/**
 * Parses a model's text into a JSON value; never throws.
 *
 * @example parseModelOutput('Sure!\n```json\n{"answer": 4}\n```') // → {ok: true, value: {answer: 4}, method: 'fence'}
 */
export function parseModelOutput(text: string, limits: JsonLimits = DEFAULT_JSON_LIMITS): ParsedOutput {
  const raw = typeof text === 'string' ? text : '';
  if (raw.trim() === '') return { ok: false, error: 'Empty response from LLM', raw };
  if (raw.length > limits.maxLength) {
    return {
      ok: false,
      error: `Response too large to parse (${raw.length} characters; limit ${limits.maxLength})`,
      raw: cutText(raw, RAW_PREVIEW_LENGTH),
    };
  }
  const { answer: visible, reasoning: reasoningText } = splitThinking(raw);
  const outcome = parseVisible(visible, limits) ?? (visible !== raw ? parseVisible(raw, limits) : undefined);
  if (outcome !== undefined) {
    if (outcome.ok && outcome.thinking === undefined && reasoningText !== undefined) outcome.thinking = reasoningText;
    return outcome;
  }
  return {
    ok: false,
    error: `Could not parse JSON from response. Raw output: ${cutText(raw, RAW_PREVIEW_LENGTH)}`,
    raw: cutText(raw, RAW_PREVIEW_LENGTH),
  };
}

function parseVisible(
  text: string,
  limits: JsonLimits,
  allowThinking = true,
): (ParsedOutput & { ok: true }) | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const whole = parseJsonSafely(trimmed, limits);
  if (whole.ok) return { ok: true, value: whole.value, method: 'json' };

  const fenced = fencedBlocks(text);
  for (const block of fenced) {
    const parsed = parseJsonSafely(block.trim(), limits);
    if (parsed.ok) return { ok: true, value: parsed.value, method: 'fence' };
  }

  const tagged = allowThinking ? thinkingTagged(text, limits) : undefined;
  if (tagged !== undefined) return tagged;

  // Outermost objects first, strictly, then repaired; only then objects nested in them (so the
  // inner object of a JSON reply with one trailing comma is not mistaken for the reply).
  const candidates = [...balancedObjects(text)];
  const outermost = candidates.filter((candidate) => !candidate.nested);
  for (const candidate of outermost) {
    const parsed = parseJsonSafely(candidate.text, limits);
    if (parsed.ok) return { ok: true, value: parsed.value, method: 'balanced' };
  }
  for (const candidate of outermost) {
    const repaired = repairJson(candidate.text);
    const parsed = repaired === undefined ? undefined : parseJsonSafely(repaired, limits);
    if (parsed?.ok) return { ok: true, value: parsed.value, method: 'repair' };
  }
  for (const candidate of candidates) {
    if (!candidate.nested) continue;
    const parsed = parseJsonSafely(candidate.text, limits);
    if (parsed.ok) return { ok: true, value: parsed.value, method: 'balanced' };
  }

  for (const candidate of [...fenced, text]) {
    const repaired = repairJson(candidate);
    if (repaired === undefined) continue;
    const parsed = parseJsonSafely(repaired, limits);
    if (parsed.ok && typeof parsed.value === 'object' && parsed.value !== null) {
      return { ok: true, value: parsed.value, method: 'repair' };
    }
  }
  return undefined;
}

/** `<thinking>…</thinking>` then an answer: the answer is parsed as JSON when it can be. */
function thinkingTagged(text: string, limits: JsonLimits): (ParsedOutput & { ok: true }) | undefined {
  const block = taggedBlock(text, text.toLowerCase(), '<thinking>', '</thinking>', 0);
  if (block === undefined) return undefined;
  const thinking = block.inner.trim();
  const after = text.slice(block.end).trim();
  const answerText = after.replace(/^(?:final\s+)?answer\s*:\s*/i, '').trim();
  if (answerText === '') return { ok: true, value: '', method: 'thinking', thinking };
  // Not recursive on tags: the answer is parsed without the thinking rule (no deep recursion).
  const inner = parseVisible(answerText, limits, false);
  return { ok: true, value: inner !== undefined ? inner.value : answerText, method: 'thinking', thinking };
}

/**
 * The bodies of fenced code blocks, in order. Line-anchored fences first (so a ``` inside a JSON
 * string does not end the block), then inline ```…``` pairs.
 */
export function fencedBlocks(text: string): string[] {
  const blocks: string[] = [];
  const lines = text.split('\n');
  let open: { fence: string; body: string[] } | undefined;
  for (const line of lines) {
    const fence = /^\s*(`{3,}|~{3,})\s*([A-Za-z0-9_+-]*)\s*$/.exec(line);
    if (open === undefined) {
      if (fence !== null) open = { fence: fence[1]!, body: [] };
    } else if (
      fence !== null &&
      fence[2] === '' &&
      fence[1]!.startsWith(open.fence[0]!) &&
      fence[1]!.length >= open.fence.length
    ) {
      blocks.push(open.body.join('\n'));
      open = undefined;
    } else {
      open.body.push(line);
    }
  }
  if (open !== undefined && open.body.length > 0) blocks.push(open.body.join('\n'));
  // Inline pairs, found with indexOf (a lazy regex here is quadratic on backtick-heavy text).
  for (let open = text.indexOf('```'); open >= 0 && blocks.length < 32; ) {
    const close = text.indexOf('```', open + 3);
    if (close < 0) break;
    const body = text.slice(open + 3, close).replace(/^[A-Za-z0-9_+-]*[ \t]*\n?/, '');
    if (!blocks.includes(body)) blocks.push(body);
    open = text.indexOf('```', close + 3);
  }
  return blocks;
}

/** The first `open…close` block at or after `from` (case-insensitive via `lower`), by indexOf: linear. */
function taggedBlock(
  text: string,
  lower: string,
  open: string,
  close: string,
  from: number,
): { start: number; inner: string; end: number } | undefined {
  const start = lower.indexOf(open, from);
  if (start < 0) return undefined;
  const closing = lower.indexOf(close, start + open.length);
  if (closing < 0) return undefined;
  return { start, inner: text.slice(start + open.length, closing), end: closing + close.length };
}
