/**
 * extractCandidate: turns what a generator or corrector returned into the candidate to evaluate
 * (docs/spec.md#51-reflectionloop step 3). An LLM call's `{content, usage, …}` is reduced to its `content`; text is
 * parsed as JSON when the evaluator is a schema or the text looks like JSON (fences stripped,
 * first balanced value, light repair, via the shared model-output parser). A parse failure is a
 * value: the caller records it as a failed attempt of type `parse_error`.
 */
import { fencedBlocks, parseModelOutput } from '../reasoning/parse-output.js';

export type Extracted = { ok: true; value: unknown } | { ok: false; error: string; raw: string };

export interface ExtractOptions {
  /** The result came from `llm.call` / `llm.stream`: use its `content`. */
  fromLlm: boolean;
  /** The evaluator is a schema: text must become JSON… */
  expectJson: boolean;
  /** …unless the schema accepts the text as it is (e.g. `type: string`). */
  acceptsText?: (text: string) => boolean;
}

/** The candidate in `raw`, or why it could not be read. */
export function extractCandidate(raw: unknown, options: ExtractOptions): Extracted {
  let text: string | undefined;
  if (typeof raw === 'string') text = raw;
  else if (
    options.fromLlm &&
    typeof raw === 'object' &&
    raw !== null &&
    typeof (raw as { content?: unknown }).content === 'string'
  ) {
    text = (raw as { content: string }).content;
  }
  if (text === undefined) return { ok: true, value: raw };
  const looksJson = looksLikeJson(text);
  if (!looksJson && !options.expectJson) return { ok: true, value: text };
  const parsed = parseModelOutput(text);
  if (parsed.ok) return { ok: true, value: parsed.value };
  if (!looksJson && options.acceptsText?.(text) === true) return { ok: true, value: text };
  return { ok: false, error: parsed.error, raw: text };
}

/** Text that is meant to be JSON: starts with `{`, is a `[…]` list, or is a fenced JSON block. */
export function looksLikeJson(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return true;
  if (trimmed.startsWith('[') && trimmed.endsWith(']')) return true;
  if (/^(`{3,}|~{3,})\s*json\b/i.test(trimmed)) return true;
  if (/^(`{3,}|~{3,})/.test(trimmed)) return fencedBlocks(trimmed).some((block) => /^\s*[{[]/.test(block));
  return false;
}
