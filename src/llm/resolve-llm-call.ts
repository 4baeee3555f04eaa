/**
 * Merges the three layers that shape a model call — the agent's `settings.llm` defaults, the
 * call's own parameters, then host/CLI/env overrides — into a connection and a request.
 *
 * Rules: `base_url` is an alias of `api_base`; `timeout` and `first_token_timeout` are in seconds (→ `…_ms`); the
 * endpoint (`provider` + `api_base`) is taken as a pair from the highest layer that names either,
 * so `--llm-base-url` replaces a `provider: scripted` or a preset below it; the host's `api_key` is
 * only sent to the endpoint the host chose (host-key.ts); `messages` win over
 * `prompt` (+ `system`); `temperature` defaults to 0.7.
 */
import { AgentError } from '../core/agent-error.js';
import { hostKeyMaySendTo } from './host-key.js';
import type { ChatMessage, LlmConnection, LlmRequest, ResponseFormat, ToolDefinition } from '../core/model-provider.js';
import { isPlainObject } from '../util/plain-object.js';
import {
  MODEL_MAX_TOKENS_CEILING,
  MODEL_RETRIES_CEILING,
  MODEL_TIMEOUT_SECONDS_CEILING,
} from '../core/setting-ceilings.js';

export interface ResolvedLlmCall {
  connection: LlmConnection;
  request: LlmRequest;
  /**
   * Ends the loan of `request.messages` (see `lendMessages`); does nothing when they were not lent.
   * May be called more than once.
   */
  release: () => void;
}

export interface ResolveOptions {
  /**
   * Lend the call the message list kept for its history instead of a copy, until `release`: for
   * a provider that only borrows requests (ModelProvider.borrowsRequest). Default false: the
   * request's messages are a copy the caller owns.
   */
  lendMessages?: boolean;
}

export const DEFAULT_TEMPERATURE = 0.7;

type Layer = Record<string, unknown>;

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** Merges the layers; throws INVALID_PARAMS for a call that cannot be sent. */
export function resolveLlmCall(
  settingsLlm: Layer | undefined,
  params: Layer,
  overrides: Layer | undefined,
  options: ResolveOptions = {},
): ResolvedLlmCall {
  const layers = [normalizeLayer(settingsLlm ?? {}), normalizeLayer(params), normalizeLayer(overrides ?? {})];
  const merged: Layer = {};
  for (const layer of layers)
    for (const [key, value] of Object.entries(layer)) if (value !== undefined && value !== null) merged[key] = value;
  let endpointLayer: Layer | undefined;
  for (let index = layers.length - 1; index >= 0 && endpointLayer === undefined; index--) {
    const layer = layers[index]!;
    if (defined(layer.provider) || defined(layer.api_base)) endpointLayer = layer;
  }
  const connection: LlmConnection = {};
  if (endpointLayer !== undefined) {
    if (defined(endpointLayer.provider)) connection.provider = String(endpointLayer.provider);
    if (defined(endpointLayer.api_base)) connection.api_base = String(endpointLayer.api_base);
  }
  const hostLayer = layers[2]!;
  // The host's key only goes where the host chose (host-key.ts); elsewhere the agent's own key, if any.
  const keyLayers = hostKeyMaySendTo(connection, hostLayer) ? layers : layers.slice(0, 2);
  let apiKey: unknown;
  for (const layer of keyLayers) if (defined(layer.api_key) && layer.api_key !== '') apiKey = layer.api_key;
  if (apiKey !== undefined) connection.api_key = String(apiKey);
  if (defined(merged.timeout_ms))
    connection.timeout_ms = numberField(merged.timeout_ms, 'timeout', 1, MODEL_TIMEOUT_SECONDS_CEILING * 1000);
  if (defined(merged.first_token_timeout_ms))
    connection.first_token_timeout_ms = numberField(
      merged.first_token_timeout_ms,
      'first_token_timeout',
      1,
      MODEL_TIMEOUT_SECONDS_CEILING * 1000,
    );
  if (defined(merged.max_retries))
    connection.max_retries = integerField(merged.max_retries, 'max_retries', 0, MODEL_RETRIES_CEILING);
  if (defined(merged.scripted)) connection.scripted = merged.scripted;
  if (defined(merged.shell_provider)) connection.shell_provider = String(merged.shell_provider);

  const messages = resolveMessages(merged, options.lendMessages === true);
  const request: LlmRequest = { messages: messages.list };
  if (defined(merged.model) && merged.model !== '') request.model = String(merged.model);
  request.temperature = defined(merged.temperature)
    ? numberField(merged.temperature, 'temperature', 0)
    : DEFAULT_TEMPERATURE;
  if (defined(merged.max_tokens))
    request.max_tokens = integerField(merged.max_tokens, 'max_tokens', 1, MODEL_MAX_TOKENS_CEILING);
  if (defined(merged.response_format)) request.response_format = responseFormat(merged.response_format);
  if (defined(merged.tools)) request.tools = merged.tools as ToolDefinition[];
  if (defined(merged.tool_choice)) request.tool_choice = merged.tool_choice as LlmRequest['tool_choice'];
  for (const key of ['top_p', 'seed', 'presence_penalty', 'frequency_penalty'] as const) {
    if (defined(merged[key])) request[key] = numberField(merged[key], key, Number.NEGATIVE_INFINITY);
  }
  if (defined(merged.stop)) request.stop = merged.stop as string | string[];
  return { connection, request, release: messages.release };
}

/** Aliases and units of one layer: base_url → api_base, timeout (s) → timeout_ms. */
function normalizeLayer(layer: Layer): Layer {
  // Most layers use neither alias: they are read as they are (layers are only read), not copied.
  if (!defined(layer.base_url) && !defined(layer.timeout) && !defined(layer.first_token_timeout)) return layer;
  const normalized: Layer = { ...layer };
  if (!defined(normalized.api_base) && defined(normalized.base_url)) normalized.api_base = normalized.base_url;
  delete normalized.base_url;
  if (!defined(normalized.timeout_ms) && defined(normalized.timeout)) {
    normalized.timeout_ms = numberField(normalized.timeout, 'timeout', 0, MODEL_TIMEOUT_SECONDS_CEILING) * 1000;
  }
  delete normalized.timeout;
  if (!defined(normalized.first_token_timeout_ms) && defined(normalized.first_token_timeout)) {
    normalized.first_token_timeout_ms =
      numberField(normalized.first_token_timeout, 'first_token_timeout', 0, MODEL_TIMEOUT_SECONDS_CEILING) * 1000;
  }
  delete normalized.first_token_timeout;
  return normalized;
}

/** The messages of a call: `messages` as given (checked), else `[system?, user: prompt]`. */
export function buildMessages(merged: Layer): ChatMessage[] {
  return resolveMessages(merged, false).list;
}

const NOTHING_LENT = (): void => {};

function resolveMessages(merged: Layer, lend: boolean): { list: ChatMessage[]; release: () => void } {
  if (defined(merged.messages)) {
    if (!Array.isArray(merged.messages) || merged.messages.length === 0)
      throw invalid('messages', 'expected a non-empty list of {role, content}');
    const reading = readMessageList(merged.messages);
    if (!lend) return { list: reading.messages.slice(), release: NOTHING_LENT };
    reading.lent = true;
    return { list: reading.messages, release: () => void (reading.lent = false) };
  }
  if (!defined(merged.prompt)) throw invalid('prompt', 'an LLM call needs `prompt` or `messages`');
  const messages: ChatMessage[] = [];
  if (defined(merged.system) && merged.system !== '') messages.push({ role: 'system', content: asText(merged.system) });
  messages.push({ role: 'user', content: asText(merged.prompt) });
  return { list: messages, release: NOTHING_LENT };
}

/**
 * A tool loop sends the same, growing history list on every call. The list's last reading is kept
 * (by list identity) and a message object at the same place is not read again: only new or
 * replaced messages are, so a long loop stays linear instead of re-reading its whole history.
 * A reading lent to a call still running (`lent`) is left alone: a concurrent call of the same list
 * reads it afresh. A tracked history (`trackMessageHistory`) is not even compared: its owner
 * changes it only through `appendMessages` and `replaceMessage`, which keep the reading up to date.
 */
interface ListReading {
  sources: unknown[];
  messages: ChatMessage[];
  lent: boolean;
  tracked: boolean;
}

const listReadings = new WeakMap<readonly unknown[], ListReading>();

function readMessageList(list: readonly unknown[]): ListReading {
  let reading = listReadings.get(list);
  if (reading === undefined)
    listReadings.set(list, (reading = { sources: [], messages: [], lent: false, tracked: false }));
  else if (reading.lent) reading = { sources: [], messages: [], lent: false, tracked: false };
  else if (reading.tracked && inStep(reading, list)) return reading;
  const { sources, messages } = reading;
  // The unchanged prefix first, in a loop that only compares (most of a long history).
  const known = Math.min(sources.length, list.length);
  let index = 0;
  while (index < known && sources[index] === list[index]) index++;
  for (; index < list.length; index++) {
    const value = list[index];
    if (index < sources.length && sources[index] === value) continue;
    messages[index] = readMessage(value, index); // throws before the cache records a bad message
    sources[index] = value;
  }
  sources.length = messages.length = list.length;
  return reading;
}

/**
 * A tracked reading agrees with its list in length and last message: what a change made around
 * `appendMessages` (a plain push) breaks. Then the list is compared in full, as an untracked one.
 */
function inStep(reading: ListReading, list: readonly unknown[]): boolean {
  const length = list.length;
  return reading.sources.length === length && (length === 0 || reading.sources[length - 1] === list[length - 1]);
}

/**
 * Declares `history` a conversation its owner changes only through `appendMessages` and
 * `replaceMessage` (a tool loop's). A model call then takes its reading as it is, with no
 * comparison to the last one: a call costs the same at step 1,000 as at step 1. A change made
 * around these functions is caught when it changes the length or the last message (the list is
 * then compared in full); replacing a message in the middle directly is not: do not.
 */
export function trackMessageHistory(history: ChatMessage[]): void {
  let reading = listReadings.get(history);
  if (reading === undefined || reading.lent)
    listReadings.set(history, (reading = { sources: [], messages: [], lent: false, tracked: false }));
  reading.tracked = true;
}

/** `history.push(...added)`, keeping a tracked history's reading up to date. */
export function appendMessages(history: ChatMessage[], ...added: ChatMessage[]): void {
  const start = history.length;
  history.push(...added);
  const reading = trackedReading(history, start);
  if (reading === undefined) return;
  for (let index = start; index < history.length; index++) updateReading(reading, history, index);
}

/** `history[index] = message`, keeping a tracked history's reading up to date. */
export function replaceMessage(history: ChatMessage[], index: number, message: ChatMessage): void {
  history[index] = message;
  const reading = trackedReading(history, history.length);
  if (reading !== undefined && index < reading.sources.length) updateReading(reading, history, index);
}

/** The reading of a tracked history that was in step before a change (`length` long), ready to change. */
function trackedReading(history: ChatMessage[], length: number): ListReading | undefined {
  const reading = listReadings.get(history);
  if (reading === undefined || !reading.tracked || reading.sources.length !== length) return undefined;
  if (reading.lent) {
    // A running call holds the messages: the reading changes on copies, the call's stay as they were.
    reading.sources = reading.sources.slice();
    reading.messages = reading.messages.slice();
  }
  return reading;
}

function updateReading(reading: ListReading, history: ChatMessage[], index: number): void {
  const value = history[index];
  try {
    reading.messages[index] = readMessage(value, index);
    reading.sources[index] = value;
  } catch {
    // A bad message is reported by the call that sends it: the next reading compares in full.
    reading.sources.length = reading.messages.length = Math.min(index, reading.sources.length);
  }
}

function readMessage(value: unknown, index: number): ChatMessage {
  if (!isPlainObject(value)) throw invalid(`messages[${index}]`, 'expected {role, content}');
  const message = value;
  if (typeof message['role'] !== 'string' || !ROLES.has(message['role'])) {
    throw invalid(`messages[${index}].role`, 'expected system, user, assistant or tool');
  }
  const result: ChatMessage = {
    role: message.role as ChatMessage['role'],
    content: message.content === null || message.content === undefined ? null : asText(message.content),
  };
  if (Array.isArray(message.tool_calls)) result.tool_calls = message.tool_calls as ChatMessage['tool_calls'];
  if (typeof message.tool_call_id === 'string') result.tool_call_id = message.tool_call_id;
  if (typeof message.name === 'string') result.name = message.name;
  return result;
}

/** `json_object` / `json_schema` in their OpenAI shapes, plus the shorthands `"json_object"` and `{type: json_schema, schema}`. */
function responseFormat(value: unknown): ResponseFormat {
  if (value === 'json_object' || value === 'json' || value === 'text')
    return { type: value === 'json' ? 'json_object' : value };
  if (isPlainObject(value)) {
    const format = value;
    if (format.type === 'text' || format.type === 'json_object') return { type: format.type };
    if (format.type === 'json_schema') {
      const inner = isPlainObject(format['json_schema']) ? format['json_schema'] : format;
      const schema = inner['schema'];
      if (!isPlainObject(schema)) throw invalid('response_format', 'json_schema needs a `schema` object');
      const jsonSchema: { name: string; schema: Record<string, unknown>; strict?: boolean } = {
        name: typeof inner['name'] === 'string' && inner['name'] !== '' ? inner['name'] : 'response',
        schema,
      };
      if (typeof inner.strict === 'boolean') jsonSchema.strict = inner.strict;
      return { type: 'json_schema', json_schema: jsonSchema };
    }
  }
  throw invalid('response_format', 'expected json_object, or {type: json_schema, json_schema: {name, schema}}');
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A number from `minimum` up to `ceiling` (docs/security.md, "Ceilings"); templated values arrive as text. */
function numberField(value: unknown, field: string, minimum: number, ceiling = Number.POSITIVE_INFINITY): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < minimum)
    throw invalid(field, `expected a number${minimum > Number.NEGATIVE_INFINITY ? ` ≥ ${minimum}` : ''}`);
  if (number > ceiling) throw invalid(field, `${number} is above its ceiling ${ceiling}`);
  return number;
}

function integerField(value: unknown, field: string, minimum: number, ceiling = Number.POSITIVE_INFINITY): number {
  const number = numberField(value, field, minimum, ceiling);
  if (!Number.isInteger(number)) throw invalid(field, 'expected an integer');
  return number;
}

function defined(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function invalid(field: string, message: string): AgentError {
  return new AgentError('INVALID_PARAMS', `${field}: ${message}`, { field });
}
