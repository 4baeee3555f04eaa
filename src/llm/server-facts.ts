/**
 * What a local model server says about itself, beyond the OpenAI routes: which server it is and how
 * much context a request gets. Each server has its own route for it:
 *
 * - Ollama: `GET /api/version`; `POST /api/show {model}` (capabilities such as `tools` and
 *   `thinking`, and `model_info["<arch>.context_length"]`, the model's maximum); `GET /api/ps`
 *   (`context_length` of a loaded model: what a request really gets).
 * - llama.cpp server: `GET /props` (`default_generation_settings.n_ctx`, the context per slot;
 *   `build_info`; `chat_template_caps.supports_tools` in recent builds).
 * - vLLM: `/v1/models` entries carry `owned_by: "vllm"` and `max_model_len`.
 * - LM Studio: `GET /api/v0/models` (`max_context_length`, `loaded_context_length` when loaded, `state`).
 *
 * Every lookup is best effort with a short timeout: a server that answers none of them is `unknown`.
 */
import { isPlainObject } from '../util/plain-object.js';
import { knownServer, type KnownServer } from './text-tool-calls.js';

export interface ServerFacts {
  kind: KnownServer | 'unknown';
  version?: string;
  /** Tokens of context a request gets, where the server reports it. */
  context_size?: number;
  /** Where `context_size` comes from, and whether it is what a request gets or the model's maximum. */
  context_source?: string;
  /** Ollama's model capabilities (`completion`, `tools`, `thinking`, …). */
  capabilities?: string[];
  /** llama.cpp: whether the loaded chat template handles tools. */
  template_supports_tools?: boolean;
}

type Get = (url: string, init?: RequestInit) => Promise<unknown>;

/**
 * Asks the server behind `apiBase` who it is. `listed` is the `/v1/models` body already read.
 * @example
 * const facts = await serverFacts('http://localhost:11434/v1', 'llama3.2', undefined, fetch);
 * // → { kind: 'ollama', version: '0.12.3', context_size: 4096, context_source: 'Ollama /api/ps …', capabilities: ['completion', 'tools'] }
 */
export async function serverFacts(
  apiBase: string,
  model: string | undefined,
  listed: unknown,
  fetchFunction: typeof fetch,
  headers: Record<string, string> = {},
): Promise<ServerFacts> {
  const root = apiBase.replace(/\/+$/, '').replace(/\/v1$/, '');
  const get: Get = async (url, init = {}) => {
    try {
      const response = await fetchFunction(url, {
        ...init,
        headers: { ...headers, ...(init.headers as Record<string, string> | undefined) },
        signal: AbortSignal.timeout(5_000),
      });
      if (!response.ok) return undefined;
      const text = await response.text();
      return text.length > 4 * 1024 * 1024 ? undefined : (JSON.parse(text) as unknown);
    } catch {
      return undefined;
    }
  };
  return (
    fromVllm(listed) ??
    (await fromOllama(root, model, get)) ??
    (await fromLlamaCpp(root, get)) ??
    (await fromLmStudio(root, model, get)) ?? { kind: knownServer(undefined, apiBase) ?? 'unknown' }
  );
}

function fromVllm(listed: unknown): ServerFacts | undefined {
  const entries = isPlainObject(listed) && Array.isArray(listed['data']) ? listed['data'].filter(isPlainObject) : [];
  const vllm = entries.find((entry) => entry['owned_by'] === 'vllm');
  if (vllm === undefined) return undefined;
  const facts: ServerFacts = { kind: 'vllm' };
  if (positive(vllm['max_model_len'])) {
    facts.context_size = vllm['max_model_len'];
    facts.context_source = 'vLLM max_model_len (per request)';
  }
  return facts;
}

async function fromOllama(root: string, model: string | undefined, get: Get): Promise<ServerFacts | undefined> {
  const version = await get(`${root}/api/version`);
  if (!isPlainObject(version) || typeof version['version'] !== 'string') return undefined;
  const facts: ServerFacts = { kind: 'ollama', version: version['version'] };
  if (model === undefined) return facts;
  const [shown, running] = await Promise.all([
    get(`${root}/api/show`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model }),
    }),
    get(`${root}/api/ps`),
  ]);
  if (isPlainObject(shown)) {
    if (Array.isArray(shown['capabilities']))
      facts.capabilities = shown['capabilities'].filter((item): item is string => typeof item === 'string');
    const info = isPlainObject(shown['model_info']) ? shown['model_info'] : {};
    const trained = Object.entries(info).find(([key, value]) => key.endsWith('.context_length') && positive(value));
    if (trained !== undefined) {
      facts.context_size = trained[1] as number;
      facts.context_source =
        "Ollama /api/show: the model's maximum; a request gets the server's default (OLLAMA_CONTEXT_LENGTH) unless the model sets num_ctx";
    }
  }
  const loaded =
    isPlainObject(running) && Array.isArray(running['models'])
      ? running['models'].filter(isPlainObject).find((entry) => entry['name'] === model || entry['model'] === model)
      : undefined;
  if (loaded !== undefined && positive(loaded['context_length'])) {
    facts.context_size = loaded['context_length'];
    facts.context_source = 'Ollama /api/ps: the context of the loaded model (per request)';
  }
  return facts;
}

async function fromLlamaCpp(root: string, get: Get): Promise<ServerFacts | undefined> {
  const props = await get(`${root}/props`);
  if (!isPlainObject(props) || !isPlainObject(props['default_generation_settings'])) return undefined;
  const facts: ServerFacts = { kind: 'llamacpp' };
  if (typeof props['build_info'] === 'string') facts.version = props['build_info'];
  const nCtx = props['default_generation_settings']['n_ctx'];
  if (positive(nCtx)) {
    facts.context_size = nCtx;
    facts.context_source = 'llama.cpp /props n_ctx (per slot: -c divided by --parallel)';
  }
  const caps = props['chat_template_caps'];
  if (isPlainObject(caps) && typeof caps['supports_tools'] === 'boolean')
    facts.template_supports_tools = caps['supports_tools'];
  return facts;
}

async function fromLmStudio(root: string, model: string | undefined, get: Get): Promise<ServerFacts | undefined> {
  const listed = await get(`${root}/api/v0/models`);
  if (!isPlainObject(listed) || !Array.isArray(listed['data'])) return undefined;
  const entries = listed['data'].filter(isPlainObject);
  if (!entries.some((entry) => 'max_context_length' in entry || 'state' in entry)) return undefined;
  const facts: ServerFacts = { kind: 'lmstudio' };
  const entry = entries.find((item) => item['id'] === model) ?? entries.find((item) => item['state'] === 'loaded');
  if (entry !== undefined && positive(entry['loaded_context_length'])) {
    facts.context_size = entry['loaded_context_length'];
    facts.context_source = 'LM Studio loaded_context_length (per request)';
  } else if (entry !== undefined && positive(entry['max_context_length'])) {
    facts.context_size = entry['max_context_length'];
    facts.context_source =
      "LM Studio max_context_length: the model's maximum; a request gets the context length set when the model was loaded";
  }
  return facts;
}

function positive(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}
