/**
 * The scripted model's script, read and checked once: a list of responses used in order, or rules
 * matched against the last user message (with an optional default). Accepted shapes:
 *
 * - `["text", {content, tool_calls, finish_reason, usage, stream_chunks, delay_ms, error}, …]`
 * - `{responses: [...]}`
 * - `{rules: [{match: "substring" | {regex, flags?}, response}], default?: response}`
 * - `[{match, response}, …, {default: response}]` (every item a rule)
 */
import { AgentError } from '../core/agent-error.js';
import { isPlainObject } from '../util/plain-object.js';
import { compileSafePattern, PatternProblem, PatternStepsExceeded, type SafePattern } from '../schema/safe-pattern.js';
import type { TokenUsage, ToolCall } from '../core/model-provider.js';
import { quoteText } from '../util/cut-text.js';

/** One scripted answer, normalised. */
export interface ScriptedResponse {
  content: string;
  tool_calls?: ToolCall[];
  finish_reason: string;
  usage?: Partial<TokenUsage>;
  /** Number of stream chunks (default: one per word). */
  stream_chunks?: number;
  /** Wait this long before answering (abortable). */
  delay_ms?: number;
  /** Fail this call with an LLM_* error instead of answering. */
  error?: { code: string; message: string };
}

export interface ScriptedRule {
  matches(text: string): boolean;
  description: string;
  response: ScriptedResponse;
}

export type ScriptedScript =
  | { kind: 'list'; responses: ScriptedResponse[] }
  | { kind: 'rules'; rules: ScriptedRule[]; fallback?: ScriptedResponse };

/** Input accepted by `createScriptedModel` and `settings.llm.scripted`. */
export type ScriptedInput = unknown;

const RESPONSE_KEYS = new Set([
  'content',
  'tool_calls',
  'finish_reason',
  'usage',
  'stream_chunks',
  'delay_ms',
  'error',
]);
const MAX_REGEX_LENGTH = 500;
/** Matcher steps one rule may take on one prompt (a few hundred milliseconds at most). */
const MAX_RULE_STEPS = 5_000_000;

/** Reads a script; throws INVALID_PARAMS naming the bad entry. */
export function readScript(input: ScriptedInput): ScriptedScript {
  if (Array.isArray(input)) {
    const allRules =
      input.length > 0 && input.every((item) => isPlainObject(item) && ('match' in item || 'default' in item));
    if (!allRules)
      return { kind: 'list', responses: input.map((item, index) => readResponse(item, `scripted[${index}]`)) };
    const rules: ScriptedRule[] = [];
    let fallback: ScriptedResponse | undefined;
    input.forEach((entry, index) => {
      if (!isPlainObject(entry)) return; // every item is one (allRules)
      if ('match' in entry) rules.push(readRule(entry, `scripted[${index}]`));
      else fallback = readResponse(entry.default, `scripted[${index}].default`);
    });
    return fallback === undefined ? { kind: 'rules', rules } : { kind: 'rules', rules, fallback };
  }
  if (isPlainObject(input) && Array.isArray(input.responses)) return readScript(input.responses);
  if (isPlainObject(input) && Array.isArray(input.rules)) {
    const rules = input.rules.map((rule, index) => readRule(rule, `scripted.rules[${index}]`));
    if (input.default === undefined) return { kind: 'rules', rules };
    return { kind: 'rules', rules, fallback: readResponse(input.default, 'scripted.default') };
  }
  throw invalid('scripted', 'expected a list of responses, {responses: [...]}, or {rules: [...], default?}');
}

function readRule(value: unknown, field: string): ScriptedRule {
  if (!isPlainObject(value) || !('match' in value)) throw invalid(field, 'a rule needs `match` and `response`');
  const response = readResponse(value.response, `${field}.response`);
  const match = value.match;
  if (typeof match === 'string') {
    return { matches: (text) => text.includes(match), description: JSON.stringify(match), response };
  }
  if (isPlainObject(match) && typeof match.regex === 'string') {
    // Rules run on model prompts, which may carry untrusted text: the linear-time engine only.
    const flagText = typeof match.flags === 'string' ? match.flags.replace(/[^ims]/g, '') : '';
    const flags = `${flagText}u`;
    let pattern: SafePattern;
    try {
      pattern = compileSafePattern(
        match.regex,
        { ignoreCase: flagText.includes('i'), multiline: flagText.includes('m'), dotAll: flagText.includes('s') },
        MAX_REGEX_LENGTH,
      );
    } catch (error) {
      if (!(error instanceof PatternProblem)) throw error;
      throw invalid(
        `${field}.match.regex`,
        `regular expression ${quoteText(match.regex, 80)} cannot be used: ${error.message}`,
      );
    }
    const matches = (text: string): boolean => {
      try {
        return pattern.run(text, MAX_RULE_STEPS).matched;
      } catch (error) {
        if (!(error instanceof PatternStepsExceeded)) throw error;
        throw new AgentError(
          'BUDGET_EXCEEDED',
          `scripted model: ${field}.match.regex took more than ${MAX_RULE_STEPS} matcher steps on a ${text.length}-character prompt`,
          { field },
        );
      }
    };
    return { matches, description: `/${match.regex}/${flags}`, response };
  }
  throw invalid(`${field}.match`, 'expected a substring or {regex: "..."}');
}

function readResponse(value: unknown, field: string): ScriptedResponse {
  if (typeof value === 'string') return { content: value, finish_reason: 'stop' };
  if (!isPlainObject(value)) throw invalid(field, 'expected a string or an object with content / tool_calls');
  const unknownKeys = Object.keys(value).filter((key) => !RESPONSE_KEYS.has(key));
  if (unknownKeys.length > 0)
    throw invalid(field, `unknown key(s) ${unknownKeys.join(', ')}; allowed: ${[...RESPONSE_KEYS].join(', ')}`);
  const content =
    value.content === undefined || value.content === null
      ? ''
      : typeof value.content === 'string'
        ? value.content
        : JSON.stringify(value.content);
  const response: ScriptedResponse = { content, finish_reason: 'stop' };
  if (value.tool_calls !== undefined) {
    if (!Array.isArray(value.tool_calls)) throw invalid(`${field}.tool_calls`, 'expected a list of {name, arguments}');
    response.tool_calls = value.tool_calls.map((call, index) =>
      readToolCall(call, `${field}.tool_calls[${index}]`, index),
    );
    if (response.tool_calls.length > 0) response.finish_reason = 'tool_calls';
  }
  if (value.finish_reason !== undefined) {
    if (typeof value.finish_reason !== 'string') throw invalid(`${field}.finish_reason`, 'expected a string');
    response.finish_reason = value.finish_reason;
  }
  if (value.usage !== undefined) {
    if (!isPlainObject(value.usage)) throw invalid(`${field}.usage`, 'expected {prompt_tokens, completion_tokens}');
    response.usage = value.usage as Partial<TokenUsage>;
  }
  if (value.stream_chunks !== undefined)
    response.stream_chunks = positiveInteger(value.stream_chunks, `${field}.stream_chunks`);
  if (value.delay_ms !== undefined) response.delay_ms = positiveInteger(value.delay_ms, `${field}.delay_ms`, 0);
  if (value.error !== undefined) response.error = readError(value.error, `${field}.error`);
  return response;
}

function readToolCall(value: unknown, field: string, index: number): ToolCall {
  if (!isPlainObject(value) || typeof value.name !== 'string' || value.name === '')
    throw invalid(field, 'a tool call needs a `name`');
  const argumentsValue = value.arguments ?? {};
  const argumentsText = typeof argumentsValue === 'string' ? argumentsValue : JSON.stringify(argumentsValue);
  const id = typeof value.id === 'string' ? value.id : `call_scripted_${index}`;
  return { id, type: 'function', function: { name: value.name, arguments: argumentsText } };
}

function readError(value: unknown, field: string): { code: string; message: string } {
  const code =
    typeof value === 'string' ? value : isPlainObject(value) && typeof value.code === 'string' ? value.code : '';
  if (!/^LLM_(HTTP_\d{3}|TIMEOUT|UNAVAILABLE|BAD_RESPONSE)$/.test(code)) {
    throw invalid(
      field,
      'expected an LLM error code: LLM_HTTP_<status>, LLM_TIMEOUT, LLM_UNAVAILABLE or LLM_BAD_RESPONSE',
    );
  }
  const message = isPlainObject(value) && typeof value.message === 'string' ? value.message : `scripted ${code}`;
  return { code, message };
}

function positiveInteger(value: unknown, field: string, minimum = 1): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum)
    throw invalid(field, `expected an integer ≥ ${minimum}`);
  return value;
}

function invalid(field: string, message: string): AgentError {
  return new AgentError('INVALID_PARAMS', `scripted model: ${field}: ${message}`, { field });
}
