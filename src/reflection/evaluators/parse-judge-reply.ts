/**
 * parseJudgeReply: reads an LLM judge's answer (docs/spec.md#52-evaluators, better than TEA). Accepts `valid` or
 * `pass` (booleans, or "true"/"false"/"yes"/"no"/"pass"/"fail"), `reason` or `feedback`,
 * `score` (default 1/0 from validity; a 0–10 or 0–100 scale is brought to 0–1), `suggestions`,
 * in bare, fenced or prose-wrapped JSON. Without a validity field the score decides (≥ 0.5). A
 * reply that cannot be parsed is an invalid attempt with the raw text as feedback: never "valid
 * because the word valid appears".
 */
import { parseModelOutput } from '../../reasoning/parse-output.js';
import type { Verdict } from '../reflection-types.js';
import { clampScore, toIssues, toStrings } from './normalize-verdict.js';
import { isPlainObject } from '../../util/plain-object.js';

const TRUE_WORDS = new Set(['true', 'yes', 'pass', 'passed', 'valid']);
const FALSE_WORDS = new Set(['false', 'no', 'fail', 'failed', 'invalid']);

export function parseJudgeReply(text: string): Verdict {
  const parsed = parseModelOutput(text);
  const reply = parsed.ok && isPlainObject(parsed.value) ? parsed.value : undefined;
  const validity =
    reply === undefined ? undefined : readBoolean(reply.valid ?? reply.pass ?? reply.passed ?? reply.is_valid);
  const rawScore = reply === undefined ? undefined : readScore(reply.score);
  if (reply === undefined || (validity === undefined && rawScore === undefined)) {
    return {
      valid: false,
      score: 0,
      errors: [
        {
          message: 'Could not read a verdict from the judge reply (expected JSON with "valid" and "score")',
          type: 'evaluator_error',
        },
      ],
      feedback: text,
      suggestions: [],
    };
  }
  const valid = validity ?? (rawScore as number) >= 0.5;
  const score = rawScore ?? (valid ? 1 : 0);
  const reason = [reply.reason, reply.feedback, reply.explanation].find(
    (value): value is string => typeof value === 'string',
  );
  const suggestions = toStrings(reply.suggestions);
  const listed = toIssues(reply.issues ?? reply.errors, 'judge');
  const errors = valid
    ? []
    : listed.length > 0
      ? listed
      : [{ message: reason ?? 'The judge found the output invalid', type: 'judge' }];
  const verdict: Verdict = { valid, score, errors, suggestions };
  if (reason !== undefined) verdict.feedback = reason;
  return verdict;
}

function readBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  return undefined;
}

function readScore(value: unknown): number | undefined {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(number)) return undefined;
  if (number > 1 && number <= 10) return number / 10;
  if (number > 10 && number <= 100) return number / 100;
  return clampScore(number);
}
