/**
 * Tool calls a model wrote as text. A server that does not parse tool calls itself (vLLM without
 * `--enable-auto-tool-choice`, a llama.cpp chat template without tool support, many GGUF
 * templates) returns the model's own markup as the answer. When a request offered tools and the
 * reply carries no native `tool_calls`, the common formats are read as calls:
 *
 * - `hermes`: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, repeated (Hermes, Qwen 2.5/3);
 * - `qwen3-xml`: `<tool_call><function=name><parameter=key>value</parameter>…</function></tool_call>`
 *   (Qwen3-Coder, Qwen3.5); a value is JSON when it reads as JSON and the tool does not declare the
 *   parameter a string, else text;
 * - `lmstudio`: `[TOOL_REQUEST]{"name": …, "arguments": {…}}[END_TOOL_REQUEST]` (LM Studio's own
 *   prompt for models without native tool use, left in the answer when LM Studio did not parse it);
 * - `llama-python-tag`: `<|python_tag|>{"name": …, "parameters": {…}}`, several joined by `;` (Llama 3.1);
 * - `llama-function`: `<function=name>{…}</function>` (Llama 3.1's custom-tool form);
 * - `mistral`: `[TOOL_CALLS][{"name": …, "arguments": {…}}]` (v3 tokenizers) or
 *   `[TOOL_CALLS]name[ARGS]{…}` (v11 tokenizers);
 * - `json`: the whole reply is a JSON object (or list of them) naming an offered tool with
 *   `parameters` or `arguments` and nothing else (Llama 3.2, many small models; a code fence allowed).
 *
 * A reply that carries a call marker these formats do not explain, or that is a bare call of an
 * offered tool in another syntax (`get_weather(city="Paris")`), is `unrecognised`: the caller fails
 * with advice on turning on the server's own tool parsing. Prose that merely names a tool is an answer.
 */
import type { ToolCall } from '../core/model-provider.js';
import { parseJsonSafely } from '../util/untrusted-json.js';
import { isPlainObject } from '../util/plain-object.js';
import { PROVIDER_PRESETS } from './presets.js';

export type TextToolFormat =
  | 'hermes'
  | 'qwen3-xml'
  | 'lmstudio'
  | 'llama-python-tag'
  | 'llama-function'
  | 'mistral'
  | 'json';

/** The offered tools, by name, with the JSON types their parameters declare (for `qwen3-xml` values). */
export type OfferedTools = readonly string[] | ReadonlyMap<string, Record<string, unknown>>;

export type TextToolCalls =
  | { kind: 'calls'; format: TextToolFormat; calls: ToolCall[] /** The reply without the markup. */; text: string }
  | { kind: 'unrecognised'; marker: string };

/** Markers of tool-call formats, known and unknown: their presence means the text meant a call. */
const CALL_MARKERS = [
  '<tool_call>',
  '<|python_tag|>',
  '[TOOL_CALLS]',
  '<function=',
  '[TOOL_REQUEST]',
  '<|tool_call_start|>',
  '<|tool_calls_section_begin|>',
  '<｜tool▁calls▁begin｜>',
  '<|tool▁calls▁begin|>',
  '<tool_calls>',
  '<function_call>',
  'functools[',
  '<|action_start|>',
  '✿FUNCTION✿',
  '<|plugin|>',
];

/**
 * Reads the tool calls in `content`, or says the text looks like a call no format explains;
 * undefined for an answer.
 * @example
 * toolCallsFromText('<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call>', ['get_weather']);
 * // → { kind: 'calls', format: 'hermes', calls: [{ id: 'text_call_0', type: 'function', … }], text: '' }
 */
export function toolCallsFromText(
  content: string,
  offered: OfferedTools,
  idPrefix = 'text_call',
): TextToolCalls | undefined {
  if (content.trim() === '') return undefined;
  const toolNames = Array.isArray(offered)
    ? (offered as readonly string[])
    : [...(offered as ReadonlyMap<string, unknown>).keys()];
  const schemas = Array.isArray(offered)
    ? new Map<string, Record<string, unknown>>()
    : (offered as ReadonlyMap<string, Record<string, unknown>>);
  const found =
    qwenXml(content, schemas) ??
    hermes(content) ??
    lmStudio(content) ??
    pythonTag(content) ??
    llamaFunction(content) ??
    mistral(content) ??
    bareJson(content, toolNames);
  if (found !== undefined)
    return {
      kind: 'calls',
      format: found.format,
      text: found.text,
      calls: found.calls.map((call, index) => toolCall(`${idPrefix}_${index}`, call)),
    };
  const marker = CALL_MARKERS.find((candidate) => content.includes(candidate));
  if (marker !== undefined) return { kind: 'unrecognised', marker };
  if (isBareCallSyntax(content, toolNames)) return { kind: 'unrecognised', marker: 'a function-call expression' };
  return undefined;
}

type Parsed = { name: string; args: Record<string, unknown> };

function hermes(content: string): Found | undefined {
  if (!content.includes('<tool_call>')) return undefined;
  const pattern = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;
  const calls: Parsed[] = [];
  for (const match of content.matchAll(pattern)) {
    const call = callObject(parseJson(unfence(match[1]!)));
    if (call === undefined) return undefined;
    calls.push(call);
  }
  return result('hermes', calls, content.replace(pattern, ''));
}

function qwenXml(content: string, schemas: ReadonlyMap<string, Record<string, unknown>>): Found | undefined {
  if (!content.includes('<tool_call>') || !content.includes('<function=')) return undefined;
  const pattern = /<tool_call>\s*<function=([A-Za-z0-9_.-]{1,64})>([\s\S]*?)<\/function>\s*(?:<\/tool_call>|$)/g;
  const calls: Parsed[] = [];
  for (const match of content.matchAll(pattern)) {
    const name = match[1]!;
    const declared = parameterTypes(schemas.get(name));
    const args: Record<string, unknown> = {};
    const body = match[2]!;
    const parameter = /<parameter=([A-Za-z0-9_.-]{1,64})>\n?([\s\S]*?)\n?<\/parameter>/g;
    for (const item of body.matchAll(parameter)) {
      const key = item[1]!;
      const text = item[2]!;
      if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
      const value = declared.get(key) === 'string' ? undefined : parseJson(text);
      args[key] = value === undefined ? text : value;
    }
    if (body.replace(parameter, '').trim() !== '') return undefined;
    calls.push({ name, args });
  }
  return result('qwen3-xml', calls, content.replace(pattern, ''));
}

function parameterTypes(schema: Record<string, unknown> | undefined): Map<string, unknown> {
  const properties = schema !== undefined && isPlainObject(schema['properties']) ? schema['properties'] : {};
  return new Map(
    Object.entries(properties).map(([key, value]) => [key, isPlainObject(value) ? value['type'] : undefined]),
  );
}

function lmStudio(content: string): Found | undefined {
  if (!content.includes('[TOOL_REQUEST]')) return undefined;
  const pattern = /\[TOOL_REQUEST\]([\s\S]*?)\[END_TOOL_REQUEST\]/g;
  const calls: Parsed[] = [];
  for (const match of content.matchAll(pattern)) {
    const call = callObject(parseJson(match[1]!));
    if (call === undefined) return undefined;
    calls.push(call);
  }
  const rest = content.replace(pattern, '');
  return rest.includes('[TOOL_REQUEST]') ? undefined : result('lmstudio', calls, rest);
}

function pythonTag(content: string): Found | undefined {
  const at = content.indexOf('<|python_tag|>');
  if (at < 0) return undefined;
  const body = content
    .slice(at + '<|python_tag|>'.length)
    .replace(/<\|eom_id\|>|<\|eot_id\|>/g, '')
    .trim();
  const calls = jsonSequence(body);
  return calls === undefined ? undefined : result('llama-python-tag', calls, content.slice(0, at));
}

function llamaFunction(content: string): Found | undefined {
  if (!content.includes('<function=')) return undefined;
  const pattern = /<function=([A-Za-z0-9_.-]{1,64})>([\s\S]*?)<\/function>/g;
  const calls: Parsed[] = [];
  for (const match of content.matchAll(pattern)) {
    const args = parseJson(match[2]!.trim() === '' ? '{}' : match[2]!);
    if (!isPlainObject(args)) return undefined;
    calls.push({ name: match[1]!, args });
  }
  const rest = content.replace(pattern, '');
  // A `<function=` left over is a call this reading did not explain.
  return rest.includes('<function=') ? undefined : result('llama-function', calls, rest);
}

function mistral(content: string): Found | undefined {
  const at = content.indexOf('[TOOL_CALLS]');
  if (at < 0) return undefined;
  const body = content.slice(at).replace(/<\/s>\s*$/, '');
  const calls: Parsed[] = [];
  for (const piece of body.split('[TOOL_CALLS]').slice(1)) {
    const trimmed = piece.trim();
    const args = trimmed.indexOf('[ARGS]');
    if (args > 0) {
      // v11: name[ARGS]{…}
      const name = trimmed.slice(0, args).trim();
      const value = parseJson(trimmed.slice(args + '[ARGS]'.length));
      if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name) || !isPlainObject(value)) return undefined;
      calls.push({ name, args: value });
      continue;
    }
    const list = jsonSequence(trimmed);
    if (list === undefined) return undefined;
    calls.push(...list);
  }
  return result('mistral', calls, content.slice(0, at));
}

/** The whole reply is a call (or a list of calls) of offered tools, in JSON. */
function bareJson(content: string, toolNames: readonly string[]): Found | undefined {
  const text = unfence(content).trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return undefined;
  const value = parseJson(text);
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) return undefined;
  const calls: Parsed[] = [];
  for (const item of items) {
    // Only the keys of a call: an answer that happens to have a `name` field stays an answer.
    if (!isPlainObject(item) || Object.keys(item).some((key) => !CALL_KEYS.has(key))) return undefined;
    const call = callObject(item);
    if (call === undefined || !toolNames.includes(call.name)) return undefined;
    calls.push(call);
  }
  return result('json', calls, '');
}

const CALL_KEYS = new Set(['name', 'arguments', 'parameters', 'type', 'id']);

/** `get_weather(city="Paris")` or `[get_weather(...), …]` as the whole reply, for an offered tool. */
function isBareCallSyntax(content: string, toolNames: readonly string[]): boolean {
  const text = unfence(content)
    .trim()
    .replace(/^\[|\]$/g, '')
    .trim();
  const match = /^([A-Za-z_][A-Za-z0-9_.-]*)\s*\(/.exec(text);
  return match !== null && toolNames.includes(match[1]!) && text.endsWith(')');
}

/** `{"name": …, "arguments"|"parameters": {…} | "…json…"}`, or `{"function": {…}}`. */
function callObject(value: unknown): Parsed | undefined {
  if (!isPlainObject(value)) return undefined;
  const inner = isPlainObject(value['function']) ? value['function'] : value;
  const name = inner['name'];
  if (typeof name !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(name)) return undefined;
  let args: unknown = inner['arguments'] ?? inner['parameters'] ?? {};
  if (typeof args === 'string') args = args.trim() === '' ? {} : parseJson(args);
  return isPlainObject(args) ? { name, args } : undefined;
}

/** One JSON call, a JSON list of calls, or calls joined by `;` (Llama 3.1). */
function jsonSequence(text: string): Parsed[] | undefined {
  const whole = parseJson(text);
  if (whole !== undefined) {
    const items = Array.isArray(whole) ? whole : [whole];
    const calls = items.map(callObject);
    return calls.length > 0 && calls.every((call) => call !== undefined) ? (calls as Parsed[]) : undefined;
  }
  const pieces = text.split(/;\s*(?=\{)/);
  if (pieces.length < 2) return undefined;
  const calls = pieces.map((piece) => callObject(parseJson(piece)));
  return calls.every((call) => call !== undefined) ? (calls as Parsed[]) : undefined;
}

type Found = { format: TextToolFormat; calls: Parsed[]; text: string };

function result(format: TextToolFormat, calls: Parsed[], rest: string): Found | undefined {
  return calls.length === 0 ? undefined : { format, calls, text: rest.trim() };
}

function toolCall(id: string, call: Parsed): ToolCall {
  return { id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } };
}

function parseJson(text: string): unknown {
  const outcome = parseJsonSafely(text.trim());
  return outcome.ok ? outcome.value : undefined;
}

function unfence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n?([\s\S]*?)\n?\s*```\s*$/.exec(text);
  return fenced === null ? text : fenced[1]!;
}

/** The local servers whose tool-call switches are known, by provider name or default port. */
export type KnownServer = 'ollama' | 'llamacpp' | 'vllm' | 'lmstudio';

const KNOWN_SERVERS: readonly KnownServer[] = ['ollama', 'llamacpp', 'vllm', 'lmstudio'];
/** The default port of each known server, from its preset `api_base`. */
const SERVER_PORTS: ReadonlyMap<string, KnownServer> = new Map(
  KNOWN_SERVERS.map((server) => [new URL(PROVIDER_PRESETS[server]!).port, server]),
);

/** Which server `provider` / `api_base` most likely name; undefined when nothing says. */
export function knownServer(provider: string | undefined, apiBase: string | undefined): KnownServer | undefined {
  const name = provider
    ?.trim()
    .toLowerCase()
    .replace(/[^a-z]/g, '');
  if (name === 'ollama' || name === 'vllm' || name === 'lmstudio') return name;
  if (name === 'llamacpp' || name === 'llamaserver') return 'llamacpp';
  if (apiBase === undefined) return undefined;
  try {
    return SERVER_PORTS.get(new URL(apiBase).port);
  } catch {
    return undefined;
  }
}

/** How to make `server` parse tool calls itself, in one sentence. */
export function nativeToolCallsAdvice(server: KnownServer | undefined): string {
  switch (server) {
    case 'ollama':
      return 'Ollama parses tool calls only for models whose template supports tools (`ollama show <model>` lists "tools" under Capabilities): pick such a model, or update Ollama';
    case 'llamacpp':
      return "start llama-server with --jinja, and with --chat-template-file <template> when the model's own template has no tool support";
    case 'vllm':
      return 'start vLLM with --enable-auto-tool-choice --tool-call-parser <hermes|llama3_json|mistral|pythonic> matching the model';
    case 'lmstudio':
      return 'load a model LM Studio marks for tool use (native or default tool support) and update LM Studio';
    default:
      return 'turn on the server\'s tool-call parsing (llama.cpp: --jinja; vLLM: --enable-auto-tool-choice --tool-call-parser <name>; Ollama: a model with the "tools" capability), or use reason.react with tool_mode: json';
  }
}
