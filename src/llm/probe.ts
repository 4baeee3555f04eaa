/**
 * The capability probe: a few small calls that tell what an OpenAI-compatible endpoint can do —
 * which models it lists, whether it streams, honours `response_format: json_schema`, returns
 * native tool calls, and streams tool calls — with advice for writing agents against it. Used by
 * `tea-edge probe` and by the web demo (where a CORS refusal is the most common finding).
 */
import { AgentError, toAgentError } from '../core/agent-error.js';
import type { ModelProvider, LlmRequest, LlmResponse, ToolDefinition } from '../core/model-provider.js';
import { createOpenAiClient } from './openai-client.js';
import { describeFetchFailure } from './fetch-failure.js';
import { redactSecrets } from './redact.js';
import { isPlainObject } from '../util/plain-object.js';
import { serverFacts, type ServerFacts } from './server-facts.js';
import { requestEmbeddings } from './embeddings-client.js';
import { nativeToolCallsAdvice, type KnownServer } from './text-tool-calls.js';

export interface ProbeOptions {
  api_base: string;
  api_key?: string;
  /** The model to test (default: the first one the server lists). */
  model?: string;
  fetch?: typeof fetch;
  /** Per-call timeout (default 60 s: local servers may load the model on the first call). */
  timeout_ms?: number;
}

/** What the probe found; a capability is `null` when it could not be tested. */
export interface ProbeReport {
  api_base: string;
  models: string[];
  model: string | undefined;
  streams: boolean | null;
  json_schema: boolean | null;
  native_tools: boolean | null;
  streamed_tools: boolean | null;
  /**
   * How tool calls come back: `native` (the server parsed them), `text` (the model wrote them as
   * text the server left alone; tea-edge reads them, `tool_call_format` names the form), `none`
   * (no call at all), null when not tested.
   */
  tool_calls: 'native' | 'text' | 'none' | null;
  tool_call_format?: string;
  /**
   * How the model's thinking arrives: in a separate `reasoning`/`reasoning_content` field, as
   * `<think>` tags inside the answer (tea-edge takes them out either way), or not at all.
   */
  reasoning: 'field' | 'think_tags' | 'none' | null;
  /** Whether `/embeddings` answers for the model (llm.embed); null when not tested. */
  embeddings: boolean | null;
  /** Which server this is and what it says about itself (context size, capabilities). */
  server: ServerFacts;
  /** Set when the browser refused the call, probably for CORS, with the fix. */
  cors_error?: string;
  /** Why each failed check failed (code: message), by check name. */
  errors: Record<string, string>;
  advice: string[];
}

const WEATHER_TOOL: ToolDefinition = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Gets the current weather for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const ANSWER_SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string', enum: ['yes', 'no'] } },
  required: ['answer'],
  additionalProperties: false,
};

/**
 * Probes an endpoint. Never throws for what the server does; each capability is reported.
 * @example
 * const report = await probeEndpoint({ api_base: 'http://localhost:11434/v1' });
 * if (report.cors_error) showFix(report.cors_error);
 */
export async function probeEndpoint(options: ProbeOptions): Promise<ProbeReport> {
  const apiBase = options.api_base.replace(/\/+$/, '');
  const secrets = options.api_key !== undefined ? [options.api_key] : [];
  const report: ProbeReport = {
    api_base: apiBase,
    models: [],
    model: options.model,
    streams: null,
    json_schema: null,
    native_tools: null,
    streamed_tools: null,
    tool_calls: null,
    reasoning: null,
    embeddings: null,
    server: { kind: 'unknown' },
    errors: {},
    advice: [],
  };
  const fetchFunction =
    options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const record = (check: string, error: unknown): AgentError => {
    const typed = toAgentError(error, 'LLM_BAD_RESPONSE');
    report.errors[check] = redactSecrets(`${typed.code}: ${typed.message}`, secrets);
    if (typed.details.probable_cors === true && report.cors_error === undefined)
      report.cors_error = redactSecrets(typed.message, secrets);
    return typed;
  };

  let listed: unknown;
  try {
    listed = await listModels(apiBase, options.api_key, fetchFunction, options.timeout_ms ?? 60_000);
    report.models = modelIds(listed);
  } catch (error) {
    record('models', error);
  }
  if (report.cors_error !== undefined) {
    report.advice.push(report.cors_error);
    return report;
  }
  if (report.errors.models?.startsWith('LLM_UNAVAILABLE') === true) {
    // Nothing answered: every capability stays untested (null), and there is no agent advice to give.
    report.advice = adviceFor(report);
    return report;
  }
  report.model = options.model ?? report.models[0];
  if (report.errors.models === undefined) {
    const headers: Record<string, string> =
      options.api_key !== undefined && options.api_key !== '' ? { authorization: `Bearer ${options.api_key}` } : {};
    report.server = await serverFacts(apiBase, report.model, listed, fetchFunction, headers);
  }

  let lastContentType = '';
  let lastBody: Promise<string> = Promise.resolve('');
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetchFunction(input, init);
    lastContentType = response.headers.get('content-type') ?? '';
    // The raw bytes tell a reasoning field from <think> tags (the client hands out both as `reasoning`).
    lastBody = response
      .clone()
      .text()
      .catch(() => '');
    return response;
  };
  const client = createOpenAiClient(
    {
      api_base: apiBase,
      max_retries: 0,
      timeout_ms: options.timeout_ms ?? 60_000,
      ...(options.api_key !== undefined ? { api_key: options.api_key } : {}),
    },
    { fetch: recordingFetch },
  );
  const base = (messages: string, extra: Partial<LlmRequest> = {}): LlmRequest => ({
    messages: [{ role: 'user', content: messages }],
    temperature: 0,
    ...(report.model !== undefined ? { model: report.model } : {}),
    ...extra,
  });

  try {
    const response = await streamWhole(client, base('Reply with the single word: ok', { max_tokens: 16 }));
    report.streams = lastContentType.includes('text/event-stream') && response.finish_reason !== null;
    report.reasoning = reasoningSource(await lastBody, response);
  } catch (error) {
    report.streams = false;
    record('streams', error);
  }
  try {
    const response = await client.generate(
      base('Is the sky blue on a clear day? Answer as JSON {"answer": "yes" | "no"}.', {
        max_tokens: 64,
        response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: ANSWER_SCHEMA, strict: true } },
      }),
    );
    report.json_schema = matchesAnswerSchema(response.content);
  } catch (error) {
    report.json_schema = false;
    record('json_schema', error);
  }
  const toolRequest = base('What is the weather in Paris? Use the get_weather tool.', {
    tools: [WEATHER_TOOL],
    tool_choice: 'auto',
    max_tokens: 128,
  });
  try {
    // The client reads tool calls a server left as text; `tool_call_format` says it did.
    const response = await client.generate(toolRequest);
    const called = calledWeather(response);
    report.native_tools = called && response.tool_call_format === undefined;
    report.tool_calls = !called ? 'none' : report.native_tools ? 'native' : 'text';
    if (response.tool_call_format !== undefined) report.tool_call_format = response.tool_call_format;
  } catch (error) {
    report.native_tools = false;
    const typed = record('native_tools', error);
    if (typed.details.reason === 'tool_calls_as_text') {
      report.tool_calls = 'text';
      report.tool_call_format = 'unreadable';
    }
  }
  try {
    const response = await streamWhole(client, toolRequest);
    report.streamed_tools =
      calledWeather(response) &&
      response.tool_call_format === undefined &&
      lastContentType.includes('text/event-stream');
  } catch (error) {
    report.streamed_tools = false;
    record('streamed_tools', error);
  }
  report.embeddings = await checkEmbeddings(apiBase, report.model, options, fetchFunction).catch((error: unknown) => {
    record('embeddings', error);
    return false;
  });
  report.advice = adviceFor(report);
  return report;
}

/** One small `/embeddings` request through the embeddings client (so a refusal is quoted and explained as in llm.embed). */
async function checkEmbeddings(
  apiBase: string,
  model: string | undefined,
  options: ProbeOptions,
  fetchFunction: typeof fetch,
): Promise<boolean> {
  const connection = {
    api_base: apiBase,
    max_retries: 0,
    timeout_ms: options.timeout_ms ?? 60_000,
    ...(options.api_key !== undefined ? { api_key: options.api_key } : {}),
  };
  const response = await requestEmbeddings(
    connection,
    model,
    ['ok'],
    new AbortController().signal,
    undefined,
    fetchFunction,
  );
  return response.embeddings.length === 1;
}

async function listModels(
  apiBase: string,
  apiKey: string | undefined,
  fetchFunction: typeof fetch,
  timeoutMs: number,
): Promise<unknown> {
  const url = `${apiBase}/models`;
  let response: Response;
  try {
    response = await fetchFunction(url, {
      headers: apiKey !== undefined && apiKey !== '' ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw describeFetchFailure(error, url);
  }
  if (!response.ok) throw new AgentError(`LLM_HTTP_${response.status}`, `GET ${url} answered HTTP ${response.status}`);
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AgentError('LLM_BAD_RESPONSE', `GET ${url} did not return JSON`);
  }
}

function modelIds(json: unknown): string[] {
  const data = isPlainObject(json) ? (json['data'] ?? json['models']) : undefined;
  if (!Array.isArray(data)) return [];
  return data
    .map((entry) =>
      typeof entry === 'string' ? entry : isPlainObject(entry) ? (entry['id'] ?? entry['name']) : undefined,
    )
    .filter((id): id is string => typeof id === 'string');
}

async function streamWhole(client: ModelProvider, request: LlmRequest): Promise<LlmResponse> {
  for await (const part of client.stream(request)) if (part.type === 'done') return part.response;
  throw new AgentError('LLM_BAD_RESPONSE', 'the stream ended without a response');
}

function reasoningSource(raw: string, response: LlmResponse): 'field' | 'think_tags' | 'none' {
  if (response.reasoning === undefined) return 'none';
  // The client's reasoning comes from a field or from tags; a field shows in the raw bytes whole.
  return /"reasoning(?:_content)?"\s*:\s*"[^"]/.test(raw) ? 'field' : 'think_tags';
}

function matchesAnswerSchema(content: string): boolean {
  try {
    const value: unknown = JSON.parse(content.trim());
    return (
      isPlainObject(value) && (value['answer'] === 'yes' || value['answer'] === 'no') && Object.keys(value).length === 1
    );
  } catch {
    return false;
  }
}

function calledWeather(response: LlmResponse): boolean {
  return (response.tool_calls ?? []).some((call) => call.function.name === 'get_weather');
}

function adviceFor(report: ProbeReport): string[] {
  const advice: string[] = [];
  const server = report.server.kind === 'unknown' ? undefined : report.server.kind;
  if (report.errors.models !== undefined) {
    // Nothing answered: what the agent should use is unknown, so there is nothing to advise about it.
    if (report.errors.models.startsWith('LLM_UNAVAILABLE'))
      return [
        `The server at ${report.api_base} did not answer (${report.errors.models}). Start it, or check the address and port.`,
      ];
    advice.push(
      `Listing models failed (${report.errors.models}); check that api_base ends with /v1 and the server is running.`,
    );
  } else if (report.models.length === 0)
    advice.push('The server lists no models; set settings.llm.model (or --llm-model) explicitly.');
  if (report.model === undefined) advice.push('No model chosen: pass --llm-model (settings.llm.model).');
  if (report.streams === false)
    advice.push('Streaming did not work: prefer llm.call over llm.stream (answer_chunk events will not arrive).');
  if (report.json_schema === false) {
    advice.push(
      'response_format json_schema is not honoured: use json_object or a prompt asking for JSON, and validate with reflection.loop (schema evaluator) to repair output.',
    );
  }
  if (report.tool_calls === 'text') {
    advice.push(
      `Tool calls come back as text (${report.tool_call_format}): tea-edge reads them, but a server that parses them is more reliable: ${nativeToolCallsAdvice(server)}.`,
    );
  } else if (report.native_tools === false) {
    advice.push(
      `No tool calls: ${nativeToolCallsAdvice(server)}; or use reason.react with tool_mode: json (the default) instead of llm.tools or tool_mode: native.`,
    );
  } else if (report.streamed_tools === false)
    advice.push('Tool calls work but not when streamed: keep llm.tools unstreamed (the default).');
  if (report.embeddings === false) advice.push(embeddingsAdvice(server));
  if (report.reasoning === 'think_tags') advice.push(thinkTagsAdvice(server));
  advice.push(...serverAdvice(report.server, report.tool_calls !== null && report.tool_calls !== 'native'));
  if (advice.length === 0)
    advice.push('Everything tested works: streaming, json_schema, native and streamed tool calls, embeddings.');
  return advice;
}

function thinkTagsAdvice(server: KnownServer | undefined): string {
  const fix =
    server === 'llamacpp'
      ? 'start llama-server with --reasoning-format deepseek'
      : server === 'vllm'
        ? 'start vLLM with --reasoning-parser <deepseek_r1|qwen3>'
        : server === 'ollama'
          ? 'update Ollama (0.9 or later sends thinking apart)'
          : "turn on the server's reasoning parser";
  return `The model's thinking arrives as <think> tags inside the answer: tea-edge takes it out (kept as \`reasoning\`), but the tags count against max_tokens and a cut answer may hold only thinking; to have the server send it apart, ${fix}.`;
}

function embeddingsAdvice(server: KnownServer | undefined): string {
  if (server === 'llamacpp')
    return 'Embeddings are off: start llama-server with --embeddings (and an embedding model) for llm.embed.';
  if (server === 'ollama')
    return "Embeddings failed for this model: pull an embedding model (e.g. nomic-embed-text) and name it in llm.embed's model.";
  if (server === 'vllm')
    return 'Embeddings are off: serve an embedding model with vllm serve <model> --task embed (a second server) for llm.embed.';
  return 'Embeddings did not work: llm.embed needs a server and model that answer /v1/embeddings.';
}

/** What the server says about itself that an agent author must act on. */
function serverAdvice(facts: ServerFacts, toolsTested?: boolean): string[] {
  const advice: string[] = [];
  const size = facts.context_size;
  if (facts.kind === 'ollama') {
    if (facts.capabilities !== undefined && !facts.capabilities.includes('tools'))
      advice.push(
        'This Ollama model has no "tools" capability: llm.tools and reason.react (native) will get no tool calls; use a tool-capable model or reason.react with tool_mode: json.',
      );
    if (size !== undefined && size <= 8192 && facts.context_source?.includes('/api/ps') === true) {
      advice.push(
        `Ollama gives each request ${size} tokens of context and silently drops the start of longer prompts: set OLLAMA_CONTEXT_LENGTH (e.g. 32768) on the server for long histories or documents.`,
      );
    } else if (facts.context_source?.includes('/api/ps') !== true) {
      advice.push(
        'Ollama cuts prompts longer than its context length without an error (default 4096 tokens or more, by memory): set OLLAMA_CONTEXT_LENGTH on the server for long histories or documents.',
      );
    }
  }
  if (facts.kind === 'llamacpp') {
    // Said once: when tool calls were tested, the tool-call advice above already names --jinja.
    if (facts.template_supports_tools === false && toolsTested !== true)
      advice.push(
        'The chat template llama-server loaded does not handle tools: start it with --jinja and a tool-capable --chat-template-file.',
      );
    if (size !== undefined && size <= 8192)
      advice.push(
        `llama-server gives each slot ${size} tokens of context: raise -c (it is divided by --parallel) for long prompts.`,
      );
  }
  if (facts.kind === 'vllm' && size !== undefined && size <= 8192)
    advice.push(`vLLM serves ${size} tokens of context (max_model_len): raise --max-model-len if memory allows.`);
  return advice;
}
