/**
 * Keys TEA defines that tea-edge does not implement. A key that would change what a run does is an
 * error naming what to write instead; a key that only concerns logging or hosting is accepted with
 * a warning (it changes nothing in the run). Everything else unknown is an unknown key.
 * Source: /work/shared/reference/tea-behaviour.md §1.1, §1.2, §1.5, §1.10, §3.1.
 */
import type { ErrorCode } from '../core/agent-error.js';

/** Where a key sits: an agent-file object, or the parameters of an action. */
export type KeyLocation = 'top' | 'settings' | 'settings.llm' | 'node' | 'edge' | 'config' | `action:${string}`;

export interface TeaKeyRule {
  code: ErrorCode;
  message: string;
  /** True: accepted with a warning (no effect on the run). */
  ignored?: boolean;
  /** Sibling keys that belong to this one (not reported again). */
  covers?: readonly string[];
}

const notSupported = (what: string, instead: string): TeaKeyRule => ({
  code: 'INVALID_AGENT',
  message: `${what} is not supported by tea-edge; ${instead}`,
});
const ignored = (what: string): TeaKeyRule => ({
  code: 'INVALID_AGENT',
  message: `${what} is ignored by tea-edge`,
  ignored: true,
});
/**
 * A key TEA's own Python runtime never reads where it is written (yaml_engine.py and yaml_nodes.py
 * read a fixed set of keys; everything else is dropped without a word): TEA runs the file as if the
 * key were not there, and so does tea-edge, with a warning saying what was meant. `validate
 * --strict` makes it an error.
 */
const ignoredByTea = (what: string, instead: string): TeaKeyRule => ({
  code: 'INVALID_AGENT',
  message: `${what} is ignored (TEA ignores it too; the run goes on without it): ${instead}`,
  ignored: true,
});

const TRACING = 'TEA tracing setting; tea-edge records every run in its trace store (see settings.trace)';
const LOCAL_BACKEND =
  'use an OpenAI-compatible server (provider: ollama, lmstudio, llamacpp, vllm, openai, or api_base)';
const SHELL_BACKEND =
  "TEA's shell provider runs only on the Node CLI whose host names the command (`tea-edge run --shell-provider NAME=COMMAND`); elsewhere use an OpenAI-compatible server (provider: ollama, lmstudio, llamacpp, vllm, openai, or api_base)";

const TOP: Record<string, TeaKeyRule> = {
  data: notSupported("TEA's `data:` block", 'put reusable values under `variables:`'),
  imports: notSupported(
    '`imports:` (Python/Rust action modules)',
    'the host registers extra actions (createActionRegistry)',
  ),
  output_schema: notSupported(
    "TEA's `output_schema` (a transform of the final state)",
    'shape the result in a last node',
  ),
  extraction_schema: notSupported(
    "TEA's extraction validation",
    'validate with `validate.schema` or a reflection evaluator',
  ),
  validation_constraints: notSupported(
    "TEA's extraction validation",
    'validate with `validate.schema` or a reflection evaluator',
  ),
  semantic_probes: notSupported(
    "TEA's extraction validation",
    'validate with `validate.schema` or a reflection evaluator',
  ),
  error_policy: notSupported('`error_policy`', 'set `on_error` on nodes'),
  // TEA reads these only under `config:` (yaml_engine.py compile_config), never at the top level.
  interrupt_before: ignoredByTea(
    'a top-level `interrupt_before:`',
    'write it under `config:` (`config: {interrupt_before: [node]}`) or `interrupt: before` on the node',
  ),
  interrupt_after: ignoredByTea(
    'a top-level `interrupt_after:`',
    'write it under `config:` (`config: {interrupt_after: [node]}`) or `interrupt: after` on the node',
  ),
  checkpoint: ignoredByTea(
    'a top-level `checkpoint:`',
    'a run pauses at `interrupt:` nodes and is resumed by id (`tea-edge resume <run id>`)',
  ),
  endpoint: ignored('`endpoint` (HTTP metadata; `tea-edge serve` routes agents by name)'),
  observability: ignored(`\`observability\` (${TRACING})`),
  validation_logging: ignored('`validation_logging` (TEA logging)'),
};

const SETTINGS: Record<string, TeaKeyRule> = {
  max_iterations: notSupported('`settings.max_iterations`', 'set `settings.limits.max_steps`'),
  ltm: notSupported('`settings.ltm` (long-term memory)', 'use memory.store / memory.retrieve'),
  secrets: notSupported('`settings.secrets`', 'the host provides keys (TEA_LLM_API_KEY, --llm-api-key)'),
  session: notSupported('`settings.session`', 'runs are resumed by id'),
  firestore: notSupported('`settings.firestore`', 'the host chooses the storage adapter'),
  memory_infrastructure: notSupported('`settings.memory_infrastructure`', 'the host chooses the storage adapter'),
  auth: notSupported('`settings.auth`', '`tea-edge serve` handles authentication'),
  rate_limiters: notSupported('`settings.rate_limiters`', 'use `settings.limits` budgets'),
  shell_providers: notSupported('`settings.shell_providers`', SHELL_BACKEND),
  graph: notSupported('`settings.graph`', 'remove it'),
  error_handling: notSupported('`settings.error_handling`', 'set `on_error` on nodes'),
  auto_trace: ignored(`\`settings.auto_trace\` (${TRACING})`),
  trace_exporter: ignored(`\`settings.trace_exporter\` (${TRACING})`),
  trace_file: ignored(`\`settings.trace_file\` (${TRACING})`),
  opik: ignored(`\`settings.opik\` (${TRACING})`),
  auto_trace_llm_payloads: ignored('`settings.auto_trace_llm_payloads` (use settings.trace.capture_payloads)'),
};

const SETTINGS_LLM: Record<string, TeaKeyRule> = Object.fromEntries(
  ['deployment', 'backend', 'n_gpu_layers', 'n_ctx', 'n_threads', 'model_path', 'chat_format', 'shell_providers'].map(
    (key) => [key, notSupported(`\`${key}\` (Azure, shell and in-process model backends)`, LOCAL_BACKEND)],
  ),
);
SETTINGS_LLM.shell_provider = notSupported('`shell_provider`', SHELL_BACKEND);
SETTINGS_LLM.api_url = notSupported('`api_url` (Rust TEA)', 'write `api_base`');
// TEA's reflection examples write these, and TEA's Python reads only `model` and `provider`.
SETTINGS_LLM.default_model = ignoredByTea('`settings.llm.default_model`', 'write `model`');
SETTINGS_LLM.default_provider = ignoredByTea('`settings.llm.default_provider`', 'write `provider`');

const NODE: Record<string, TeaKeyRule> = {
  retry: notSupported('a node `retry:` block', 'write `on_error: {mode: retry, max_retries: N, backoff_ms: M}`'),
  fallback: notSupported(
    'a node `fallback:`',
    'write `on_error: graceful` and route on `state.__error__` with goto rules',
  ),
  strategy: notSupported('`strategy:` (matrix fan-out)', 'use a parallel edge with `fan_in`'),
  parallel_each: notSupported('`parallel_each:`', 'use a parallel edge with `fan_in`'),
  _render_items: ignored("`_render_items` (a hint for TEA's graph renderer)"),
  // TEA's docs and examples write these on nodes, but TEA's Python never reads them there
  // (yaml_nodes.py create_run_function): the node runs without them, in TEA and here.
  params: ignoredByTea('a node `params:`', 'action parameters go under `with:`'),
  outputs: ignoredByTea(
    'a node `outputs:`',
    'write `output: <key>` and shape the result in a `run: {type: expression}` node',
  ),
  prompt: ignoredByTea('a node `prompt:`', "an action's prompt goes under `with:`"),
  inputs: ignoredByTea('a node `inputs:`', 'action parameters go under `with:`'),
  next: ignoredByTea('a node `next:`', 'write `goto: <node>` (or an edge)'),
  edges: ignoredByTea('a node `edges:` map', 'write `goto:` rules with `if:` on the node'),
  interrupt_before: ignoredByTea('a node `interrupt_before:`', 'write `interrupt: before`'),
  interrupt_after: ignoredByTea('a node `interrupt_after:`', 'write `interrupt: after`'),
};

const EDGE: Record<string, TeaKeyRule> = {
  targets: notSupported('`targets:` (Rust TEA)', 'write `to:`'),
  timeout_seconds: notSupported('per-edge `timeout_seconds`', 'set `timeout_ms` on the nodes'),
  retry: notSupported('per-edge `retry`', 'set `on_error` on the nodes'),
  circuit_breaker: notSupported('per-edge `circuit_breaker`', 'set `on_error` on the nodes'),
};

const CONFIG: Record<string, TeaKeyRule> = {
  checkpoint: notSupported(
    '`config.checkpoint` (resume from a file)',
    'resume a run by id (`tea-edge resume <run id>`)',
  ),
  checkpoint_dir: ignored('`config.checkpoint_dir` (the host stores checkpoints: --trace-dir)'),
};

const LLM_CALL: Record<string, TeaKeyRule> = {
  deployment: notSupported('`deployment` (Azure OpenAI)', LOCAL_BACKEND),
  shell_provider: notSupported('`shell_provider`', SHELL_BACKEND),
  base_delay: ignored('`base_delay` (retries back off exponentially with jitter)'),
  max_delay: ignored('`max_delay` (retries back off exponentially with jitter)'),
  opik_trace: ignored(`\`opik_trace\` (${TRACING})`),
  opik_project_name: ignored(`\`opik_project_name\` (${TRACING})`),
};

const BY_LOCATION: Record<string, Record<string, TeaKeyRule>> = {
  top: TOP,
  settings: SETTINGS,
  'settings.llm': SETTINGS_LLM,
  node: NODE,
  edge: EDGE,
  config: CONFIG,
  'action:llm.call': LLM_CALL,
  'action:llm.stream': LLM_CALL,
  'action:llm.tools': LLM_CALL,
};

/** The rule for a key TEA defines and tea-edge does not implement, at a location; `value` is the key's value. */
export function teaKeyRule(location: KeyLocation, key: string, value: unknown): TeaKeyRule | undefined {
  if (location === 'settings' && key === 'allow_cycles') {
    return value === true
      ? ignored('`settings.allow_cycles: true` (cycles are allowed; `settings.limits.max_steps` bounds them)')
      : notSupported('`settings.allow_cycles: false`', 'remove it (cycles are bounded by `settings.limits.max_steps`)');
  }
  if (location === 'settings' && key.startsWith('trace_payload_'))
    return ignored(`\`settings.${key}\` (use settings.trace.capture_payloads)`);
  const rules = BY_LOCATION[location];
  return rules !== undefined && Object.hasOwn(rules, key) ? rules[key] : undefined;
}

/**
 * The rule for a key on a host that serves `provider: shell` (the Node CLI with `--shell-provider`):
 * `shell_provider` names one of the host's commands and is read; `settings.shell_providers` (the
 * commands an agent would start) is not: only the host names commands.
 */
export function shellKeyRule(location: KeyLocation, key: string, value: unknown): TeaKeyRule | 'accepted' | undefined {
  if (
    key === 'shell_provider' &&
    (location === 'settings.llm' || location === 'action:llm.call' || location === 'action:llm.stream')
  )
    return 'accepted';
  if (key === 'shell_providers' && location === 'settings')
    return ignored(
      "`settings.shell_providers` (an agent file never names the commands a host starts: the host's --shell-provider does)",
    );
  return teaKeyRule(location, key, value);
}

/** Node types tea-edge runs (src/graph/while-loop.ts, src/graph/dynamic-parallel.ts). */
export const NODE_TYPES: readonly string[] = ['while_loop', 'dynamic_parallel'];

/** The refusal of a node `type:` tea-edge does not run. */
export function unsupportedNodeType(value: unknown): TeaKeyRule {
  const type = typeof value === 'string' ? value : JSON.stringify(value);
  return {
    code: 'UNSUPPORTED_NODE_TYPE',
    message: `node type \`${type}\` is not supported by tea-edge; the node types are ${NODE_TYPES.map((name) => `\`${name}\``).join(' and ')}, else a node's body is \`uses:\`, \`run:\` or \`steps:\``,
  };
}

/**
 * TEA's model providers that tea-edge does not offer, each with why. `shell` runs a local command
 * (claude, gemini, qwen…) and pipes the prompt to it: browsers and edge workers cannot start
 * processes; the Node CLI serves it only when its host names the command (hostProviders).
 */
const TEA_PROVIDERS: Readonly<Record<string, string>> = {
  shell:
    "`provider: shell` (TEA's shell provider, which starts a local command such as a model CLI and pipes the prompt to it) is not served by this host: only the Node CLI runs it, when its host names the command (`tea-edge run --shell-provider NAME=COMMAND`), never the agent file alone; browsers, edge workers and Deno cannot start processes; or serve the model over an OpenAI-compatible API (ollama, llama.cpp, LM Studio, vLLM) and set `provider` and `api_base`",
  local:
    "`provider: local` (TEA's in-process llama.cpp backend) is not supported: tea-edge does not load model files itself; serve the model over an OpenAI-compatible API (llama.cpp's server, ollama, LM Studio) and set `provider` and `api_base`",
  azure:
    '`provider: azure` (Azure OpenAI deployments) is not supported by tea-edge; use an OpenAI-compatible endpoint (`provider: openai-compatible` with `api_base`)',
  azure_openai:
    '`provider: azure_openai` (Azure OpenAI deployments) is not supported by tea-edge; use an OpenAI-compatible endpoint (`provider: openai-compatible` with `api_base`)',
  litellm:
    '`provider: litellm` (a Python library) is not supported by tea-edge; run the LiteLLM proxy, which is OpenAI-compatible, and give its `api_base`',
};

/** Why a TEA provider name tea-edge does not offer is refused, or undefined when it is not one. */
export function teaProviderRefusal(name: string): string | undefined {
  return Object.hasOwn(TEA_PROVIDERS, name) ? TEA_PROVIDERS[name] : undefined;
}
