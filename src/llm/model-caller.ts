/**
 * The ModelCaller: the one way the engine talks to models during a run. Per call it merges
 * `settings.llm` ← call params ← overrides, picks (and caches, one per connection per run) a
 * provider, counts every attempt in the run budget, emits `llm_request` / `answer_chunk` /
 * `llm_response` events (message text only with payload capture, always redacted), and returns the
 * final response. The engine creates one per run.
 */
import { AgentError, toAgentError } from '../core/agent-error.js';
import type { EmitEvent, LlmAnsweredData, LlmRequestData } from '../core/events.js';
import type { EmbedCallParams, LlmCallOptions, LlmCallParams } from '../core/model-provider.js';
import type {
  LlmCallHooks,
  LlmConnection,
  ModelProvider,
  ModelProviderFactory,
  LlmRequest,
  LlmResponse,
  TokenUsage,
  ToolCall,
} from '../core/model-provider.js';
import { createProvider } from './create-provider.js';
import { requestPayload, responsePayload } from './payload-capture.js';
import { createSanitizer } from '../events/outbound.js';
import { redactSecrets, redactValue } from './redact.js';
import { redactInputs, redactRequest } from './redact-request.js';
import { resolveLlmCall } from './resolve-llm-call.js';
import { isScriptedModel, SCRIPTED_MODEL_NAME } from './scripted-model.js';
import type { EmbeddingsResponse } from './embeddings-client.js';
import { presetApiBase } from './presets.js';

export interface ModelCallerEnvironment {
  /** The agent's settings.llm. */
  settingsLlm: Record<string, unknown>;
  /** Host/CLI/env values that win over everything, nested calls included. */
  overrides?: { api_base?: string; model?: string; api_key?: string; provider?: string };
  /** Default: createProvider. */
  providerFactory?: ModelProviderFactory;
  signal: AbortSignal;
  emit: EmitEvent;
  /** Throws BUDGET_EXCEEDED; `beforeLlmCall` runs before every attempt, retries included. */
  budget: { beforeLlmCall(): void; afterLlmCall(usage: TokenUsage): void };
  /** Include message text and responses in events (redacted, capped). */
  capturePayloads: boolean;
  /** Values to redact wherever they appear. */
  secrets?: string[];
  /**
   * Calls made so far to each scripted script (keyed by a hash of the script), shared with the run
   * so a checkpoint can keep it: a resumed run continues a scripted list instead of restarting it.
   */
  scriptedCalls?: Map<string, number>;
}

export interface ModelCaller {
  call(params: LlmCallParams, options?: LlmCallOptions): Promise<LlmResponse>;
  /** Embeddings over the same connection layers, budget and events as `call` (llm.embed). */
  embed(params: EmbedCallParams): Promise<EmbeddingsResponse>;
}

/**
 * Creates the run's model caller.
 * @example
 * const caller = createModelCaller({ settingsLlm: { provider: 'scripted', scripted: ['Hi'] }, signal, emit, budget, capturePayloads: false });
 * const response = await caller.call({ prompt: 'Hello' });
 */
export function createModelCaller(environment: ModelCallerEnvironment): ModelCaller {
  const providers = new Map<string, ModelProvider>();
  const factory = environment.providerFactory ?? ((connection: LlmConnection) => createProvider(connection));
  const overrides = cleanOverrides(environment.overrides);

  // Scripts are keyed by content (a script rendered afresh per call must keep its position) through
  // a small id; the usual script is the same settings.llm object each call, so it is stringified once.
  const scriptTexts = new WeakMap<object, string>();
  const scriptIds = new Map<string, number>();
  const scriptKey = (scripted: unknown): number => {
    let text: string;
    if (typeof scripted === 'object' && scripted !== null) {
      text = scriptTexts.get(scripted) ?? JSON.stringify(scripted);
      scriptTexts.set(scripted, text);
    } else {
      text = JSON.stringify(scripted) ?? '';
    }
    let id = scriptIds.get(text);
    if (id === undefined) scriptIds.set(text, (id = scriptIds.size));
    return id;
  };

  // A run usually calls one connection over and over: the last one is checked first, field by
  // field, before the key is serialised for the map.
  let last: { connection: LlmConnection; provider: ModelProvider } | undefined;

  function providerFor(connection: LlmConnection): ModelProvider {
    if (last !== undefined && sameConnection(last.connection, connection)) return last.provider;
    const key = JSON.stringify([
      connection.provider,
      connection.api_base,
      connection.api_key,
      connection.timeout_ms,
      connection.first_token_timeout_ms,
      connection.max_retries,
      scriptKey(connection.scripted),
    ]);
    let provider = providers.get(key);
    if (provider === undefined) {
      provider =
        connection.scripted === undefined || environment.scriptedCalls === undefined
          ? factory(connection)
          : countedScripted(connection, environment.scriptedCalls);
      providers.set(key, provider);
    }
    last = { connection, provider };
    return provider;
  }

  /** A scripted provider that starts after the calls already made and counts the new ones. */
  function countedScripted(connection: LlmConnection, counts: Map<string, number>): ModelProvider {
    const scriptHash = hashText(
      scriptTexts.get(connection.scripted as object) ?? JSON.stringify(connection.scripted) ?? '',
    );
    const inner = factory({ ...connection, scripted_start: counts.get(scriptHash) ?? 0 });
    const count = () => counts.set(scriptHash, (counts.get(scriptHash) ?? 0) + 1);
    const counted: ModelProvider = {
      generate(request, signal, hooks) {
        count();
        return inner.generate(request, signal, hooks);
      },
      stream(request, signal, hooks) {
        count();
        return inner.stream(request, signal, hooks);
      },
    };
    // Keep the scripted marker, so calls stay labelled `scripted` in events and results.
    return isScriptedModel(inner) ? Object.assign(Object.create(inner) as ModelProvider, counted) : counted;
  }

  return {
    async call(params, options = {}) {
      const secrets = collectSecrets(environment, params);
      const { connection, request, release } = resolveLlmCall(
        environment.settingsLlm,
        params as Record<string, unknown>,
        overrides,
        { lendMessages: true },
      );
      let model = request.model ?? 'default';
      const label = options.label === undefined ? {} : { label: options.label };
      const stream = options.stream === true;
      const started = Date.now();
      let attempts = 0;
      let responded = false;

      try {
        const provider = providerFor(connection);
        // The history is lent only to a provider that borrows requests; any other gets its own copy.
        if (provider.borrowsRequest !== true) {
          request.messages = request.messages.slice();
          release();
        }
        // What leaves for the model passes the run's redaction: a secret a tool echoed stays here.
        const sent = redactRequest(request, secrets);
        const isScripted = isScriptedModel(provider);
        if (isScripted) model = SCRIPTED_MODEL_NAME;
        const requestEvent: LlmRequestData = {
          model,
          provider: isScripted ? SCRIPTED_MODEL_NAME : (connection.provider ?? 'openai-compatible'),
          message_count: sent.messages.length,
          stream,
          ...label,
          ...(options.purpose === undefined ? {} : { purpose: options.purpose }),
        };
        if (sent.tools !== undefined) requestEvent.tool_count = sent.tools.length;
        if (environment.capturePayloads) requestEvent.request = requestPayload(sent, secrets);
        environment.budget.beforeLlmCall();
        attempts = 1;
        environment.emit('llm_request', requestEvent);
        const hooks: LlmCallHooks = {
          beforeRetry(retry) {
            attempts = retry.attempt;
            environment.emit('log', {
              source: 'model',
              message: `retrying model call (attempt ${retry.attempt}) after ${retry.error.code}`,
              attempt: retry.attempt,
              delay_ms: retry.delay_ms,
              error: { code: retry.error.code, message: retry.error.message },
              ...label,
            });
            environment.budget.beforeLlmCall();
          },
        };
        const response = withoutSecrets(
          stream
            ? await streamResponse(provider, sent, environment, hooks, label, secrets)
            : await provider.generate(sent, environment.signal, hooks),
          secrets,
        );
        const responseEvent: LlmAnsweredData = {
          model: isScripted ? SCRIPTED_MODEL_NAME : response.model,
          usage: response.usage,
          duration_ms: Date.now() - started,
          finish_reason: response.finish_reason,
          attempts,
          ...label,
        };
        if (response.tool_calls !== undefined) responseEvent.tool_call_count = response.tool_calls.length;
        if (response.tool_call_format !== undefined) responseEvent.tool_calls_from_text = response.tool_call_format;
        if (response.reasoning !== undefined) responseEvent.reasoning_chars = response.reasoning.length;
        if (response.finish_reason === 'length') responseEvent.truncated = true;
        if (environment.capturePayloads) responseEvent.response = responsePayload(response, secrets);
        environment.emit('llm_response', responseEvent);
        responded = true;
        environment.budget.afterLlmCall(response.usage);
        return isScripted ? { ...response, model: SCRIPTED_MODEL_NAME } : response;
      } catch (error) {
        const typed = redactError(toAgentError(error, 'LLM_BAD_RESPONSE'), secrets);
        if (attempts > 0 && !responded) {
          environment.emit('llm_response', {
            model,
            error: { code: typed.code, message: typed.message },
            duration_ms: Date.now() - started,
            attempts,
            ...label,
          });
        }
        throw typed;
      } finally {
        release();
      }
    },

    async embed(params) {
      const { input, model: embedModel, ...connectionParams } = params;
      const secrets = collectSecrets(environment, params as LlmCallParams);
      // The connection layers of a chat call; `prompt` only satisfies the chat-message check.
      const { connection, request } = resolveLlmCall(
        environment.settingsLlm,
        { ...connectionParams, prompt: '' },
        overrides,
      );
      const model = embedModel ?? request.model;
      const providerName = connection.provider?.trim().toLowerCase();
      const scripted =
        providerName === 'scripted' ||
        (providerName === undefined && connection.api_base === undefined && connection.scripted !== undefined);
      const started = Date.now();
      const eventModel = scripted ? SCRIPTED_MODEL_NAME : (model ?? 'default');
      let attempts = 0;
      try {
        const apiBase = connection.api_base ?? (providerName === undefined ? undefined : presetApiBase(providerName));
        if (!scripted && (apiBase === undefined || apiBase === '')) {
          throw new AgentError(
            'LLM_UNAVAILABLE',
            'no model endpoint configured for embeddings: set settings.llm.provider or api_base, or pass --llm-base-url / TEA_LLM_BASE_URL',
            {
              field: 'api_base',
              details: { reason: 'no_endpoint', retryable: false },
            },
          );
        }
        environment.budget.beforeLlmCall();
        attempts = 1;
        environment.emit('llm_request', {
          kind: 'embeddings',
          model: eventModel,
          provider: scripted ? SCRIPTED_MODEL_NAME : (connection.provider ?? 'openai-compatible'),
          input_count: input.length,
        });
        // The embeddings client loads on the first embedding: its own chunk where bundles split.
        const { requestEmbeddings, scriptedEmbeddings } = await import('./embeddings-client.js');
        const response = scripted
          ? scriptedEmbeddings(redactInputs(input, secrets))
          : await requestEmbeddings(
              { ...connection, api_base: apiBase! },
              model,
              redactInputs(input, secrets),
              environment.signal,
              (retry) => {
                attempts = retry.attempt;
                environment.emit('log', {
                  source: 'model',
                  message: `retrying embeddings call (attempt ${retry.attempt}) after ${retry.error.code}`,
                  attempt: retry.attempt,
                  delay_ms: retry.delay_ms,
                  error: { code: retry.error.code, message: retry.error.message },
                });
                environment.budget.beforeLlmCall();
              },
            );
        environment.emit('llm_response', {
          kind: 'embeddings',
          model: scripted ? SCRIPTED_MODEL_NAME : response.model,
          usage: response.usage,
          dimensions: response.embeddings[0]?.length ?? 0,
          duration_ms: Date.now() - started,
          attempts,
        });
        environment.budget.afterLlmCall(response.usage);
        return response;
      } catch (error) {
        const typed = redactError(toAgentError(error, 'LLM_BAD_RESPONSE'), secrets);
        if (attempts > 0)
          environment.emit('llm_response', {
            kind: 'embeddings',
            model: eventModel,
            error: { code: typed.code, message: typed.message },
            duration_ms: Date.now() - started,
            attempts,
          });
        throw typed;
      }
    },
  };
}

async function streamResponse(
  provider: ModelProvider,
  request: LlmRequest,
  environment: ModelCallerEnvironment,
  hooks: LlmCallHooks,
  label: { label?: string },
  secrets: readonly string[],
): Promise<LlmResponse> {
  // Pieces are redacted as one text: a key split across chunks never reassembles in the trace.
  const redactor = createSanitizer(secrets).stream();
  const emitChunk = (content: string) => {
    if (content !== '') environment.emit('answer_chunk', { content, ...label });
  };
  for await (const part of provider.stream(request, environment.signal, hooks)) {
    if (part.type === 'delta') emitChunk(redactor.push(part.content));
    else if (part.type === 'done') {
      emitChunk(redactor.flush());
      return part.response;
    }
  }
  throw new AgentError('LLM_BAD_RESPONSE', 'the model stream ended without a final response', {
    details: { cut: true },
  });
}

function cleanOverrides(overrides: ModelCallerEnvironment['overrides']): Record<string, unknown> {
  const clean: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(overrides ?? {}))
    if (typeof value === 'string' && value !== '') clean[key] = value;
  return clean;
}

/** Every value that must never show: host secrets and each api_key of every layer. */
function collectSecrets(environment: ModelCallerEnvironment, params: LlmCallParams): string[] {
  const secrets = [...(environment.secrets ?? [])];
  for (const value of [environment.settingsLlm.api_key, environment.overrides?.api_key, params.api_key]) {
    if (typeof value === 'string' && value !== '') secrets.push(value);
  }
  return secrets;
}

/** A model that echoes a key (it can read it from a prompt) must not carry it into state or output. */
function withoutSecrets(response: LlmResponse, secrets: readonly string[]): LlmResponse {
  if (secrets.length === 0) return response;
  const text = JSON.stringify([response.content, response.reasoning ?? null, response.tool_calls ?? null]);
  if (!secrets.some((secret) => secret.length >= 4 && text.includes(secret))) return response;
  const clean: LlmResponse = { ...response, content: redactSecrets(response.content, secrets) };
  if (response.reasoning !== undefined) clean.reasoning = redactSecrets(response.reasoning, secrets);
  if (response.tool_calls !== undefined) clean.tool_calls = redactValue(response.tool_calls, secrets) as ToolCall[];
  return clean;
}

/** The same error with secrets removed from its message and details. */
function redactError(error: AgentError, secrets: readonly string[]): AgentError {
  const message = redactSecrets(error.message, secrets);
  const detailsText = JSON.stringify(error.details);
  const cleanDetails = redactSecrets(detailsText, secrets);
  if (message === error.message && cleanDetails === detailsText) return error;
  return new AgentError(error.code, message, { details: JSON.parse(cleanDetails) as Record<string, unknown> });
}

/** Same provider key: equal fields, and the very same `scripted` value (else the map decides by content). */
function sameConnection(left: LlmConnection, right: LlmConnection): boolean {
  return (
    left.provider === right.provider &&
    left.api_base === right.api_base &&
    left.api_key === right.api_key &&
    left.timeout_ms === right.timeout_ms &&
    left.first_token_timeout_ms === right.first_token_timeout_ms &&
    left.max_retries === right.max_retries &&
    left.scripted === right.scripted
  );
}

/** FNV-1a, 32 bits, as hex: a short stable key for a script. */
function hashText(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16);
}
