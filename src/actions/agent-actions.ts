/**
 * TEA's multi-agent actions (TEA-AGENT-001.1): `agent.dispatch`, `agent.parallel` and
 * `agent.sequential`. In TEA an "agent" is a model persona declared in `settings.agents`
 * (`{model, system_prompt, temperature, max_tokens, timeout, retry}`, inheriting `settings.llm`),
 * and each action sends a task to one or more of them:
 *
 *   settings: { agents: { researcher: { system_prompt: "You gather facts." } } }
 *   - { name: r, action: agent.dispatch, with: { agent: researcher, task: "Research {{ state.topic }}" }, output: research }
 *
 * Every call goes through the run's model caller, so the personas share the run's budget and
 * their llm_request/llm_response events sit in the run's trace under the node, labelled with the
 * agent's name. As everywhere in tea-edge, a model server failure ends the node with its typed
 * error instead of becoming `{success: false}`. Differences from TEA's Python, on purpose:
 * an agent name that `settings.agents` does not declare is a load error (TEA skips it with a log
 * line); `agent.parallel` lists results in the order of `agents` (TEA: completion order); no
 * `elapsed_ms` (results stay identical between runs and runtimes). `agent.coordinate` is not here.
 *
 * Besides TEA: an agent can also be another agent *file of the same host*, written
 * `{file: triage.yaml}` wherever a persona name goes (`agent:`, an `agents:` entry). It runs as a
 * sub-run (src/graph/sub-run.ts): the task is added to its input as `task` (with the `input:`
 * mapping, when given), it shares the run's budgets, its events sit in the trace under this node
 * with a `sub_run` field, and its answer is its final state's `response` (the whole final state
 * is in `state`). A plain name is always a persona, so the two never collide.
 */
import { AgentError } from '../core/agent-error.js';
import type { CompiledValue } from '../templates/types.js';
import { collect, consensus, first, mapLimited, vote } from './agent-aggregation.js';
import { rootedPathRefusal } from '../util/rooted-path.js';
import type { ActionCompiler, ActionContext, ActionDefinition, LlmCallParams, State } from '../core/action.js';
import { isPlainObject } from '../util/plain-object.js';
import { MODEL_TIMEOUT_SECONDS_CEILING } from '../core/setting-ceilings.js';
import { quoteText } from '../util/cut-text.js';

/** An agent as `settings.agents.<name>` declares it. */
interface AgentPersona {
  name: string;
  model?: string;
  system_prompt?: string;
  temperature?: number;
  max_tokens?: number;
  timeout?: number;
  max_retries?: number;
}

const AGGREGATIONS = ['collect', 'vote', 'first', 'consensus'] as const;
type Aggregation = (typeof AGGREGATIONS)[number];
const MAX_AGENTS = 32;
const MAX_CONSENSUS_ROUNDS = 10;

/** Reads `settings.agents`; TEA's AgentRegistry checks (a mapping per agent, temperature 0–2). */
function readAgents(settings: Readonly<Record<string, unknown>>): Map<string, AgentPersona> {
  const raw = settings['agents'];
  const agents = new Map<string, AgentPersona>();
  if (raw === undefined || raw === null) return agents;
  if (!isPlainObject(raw))
    throw new AgentError('INVALID_AGENT', 'settings.agents must map agent names to {model, system_prompt, …}', {
      field: 'settings.agents',
    });
  for (const [name, config] of Object.entries(raw)) {
    if (!isPlainObject(config)) {
      throw new AgentError('INVALID_AGENT', `settings.agents.${name} must be a mapping`, {
        field: `settings.agents.${name}`,
      });
    }
    const persona: AgentPersona = { name };
    if (typeof config['model'] === 'string') persona.model = config['model'];
    if (typeof config['system_prompt'] === 'string') persona.system_prompt = config['system_prompt'];
    if (typeof config['temperature'] === 'number') {
      if (config['temperature'] < 0 || config['temperature'] > 2)
        throw new AgentError('INVALID_AGENT', `settings.agents.${name}.temperature must be between 0 and 2`, {
          field: `settings.agents.${name}.temperature`,
        });
      persona.temperature = config['temperature'];
    }
    if (typeof config['max_tokens'] === 'number') persona.max_tokens = config['max_tokens'];
    if (typeof config['timeout'] === 'number') persona.timeout = config['timeout'];
    const retry = config['retry'] as { max_attempts?: unknown } | undefined;
    // TEA retries the whole call max_attempts times; here the client's retries do that job.
    if (typeof retry?.max_attempts === 'number' && retry.max_attempts >= 1)
      persona.max_retries = Math.floor(retry.max_attempts) - 1;
    agents.set(name, persona);
  }
  return agents;
}

function persona(context: ActionContext, name: string): AgentPersona {
  const agents = readAgents(context.settings);
  const found = agents.get(name);
  if (found === undefined) throw unknownAgent(name, agents);
  return found;
}

/** A rendered agent reference: a persona of settings.agents, or an agent file run as a sub-run. */
type AgentRef = { kind: 'persona'; persona: AgentPersona; name: string } | { kind: 'file'; file: string; name: string };

function reference(context: ActionContext, value: unknown, field: string): AgentRef {
  const file = fileOf(value);
  if (file !== undefined) {
    if (typeof file !== 'string')
      throw new AgentError('INVALID_PARAMS', `\`${field}.file\` must be a path (text)`, { field });
    return { kind: 'file', file, name: file };
  }
  const found = persona(context, text(value, field));
  return { kind: 'persona', persona: found, name: found.name };
}

/** The `file` of a `{file: …}` reference (any value, checked by the caller), or undefined for a name. */
function fileOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== 'file')
    throw new AgentError('INVALID_PARAMS', 'an agent is a name from settings.agents or {file: <agent file>}', {
      field: 'agent',
    });
  return (value as { file: unknown }).file;
}

/** The agents a rendered `agents` list names, in order. */
function references(context: ActionContext, names: unknown): AgentRef[] {
  if (!Array.isArray(names) || names.length === 0 || names.length > MAX_AGENTS) {
    throw new AgentError('INVALID_PARAMS', `\`agents\` must be a list of 1 to ${MAX_AGENTS} agents`, {
      field: 'agents',
    });
  }
  return names.map((name, index) => reference(context, name, `agents[${index}]`));
}

function unknownAgent(name: string, agents: Map<string, AgentPersona>): AgentError {
  const available = agents.size === 0 ? 'settings.agents declares none' : `available: ${[...agents.keys()].join(', ')}`;
  return new AgentError('INVALID_PARAMS', `agent '${name}' is not declared in settings.agents (${available})`, {
    field: 'agent',
  });
}

/** Load-time check of literal agent names against settings.agents, and of literal file paths. */
function checkNames(names: unknown, compiler: ActionCompiler, field: string): void {
  const list = Array.isArray(names) ? names : [names];
  let agents: Map<string, AgentPersona>;
  try {
    agents = readAgents(compiler.agentSettings);
  } catch (error) {
    throw compiler.error((error as Error).message, 'settings.agents', 'INVALID_AGENT');
  }
  for (const name of list) {
    if (typeof name === 'string' && !name.includes('{{') && !agents.has(name))
      throw compiler.error(unknownAgent(name, agents).message, field);
    if (typeof name === 'object' && name !== null) checkFile(name, compiler, field);
  }
}

/** A literal `{file: …}` reference: the one key, and a path that stays inside the host's root. */
function checkFile(value: object, compiler: ActionCompiler, field: string): void {
  let file: unknown;
  try {
    file = fileOf(value);
  } catch (error) {
    throw compiler.error((error as Error).message, field);
  }
  if (typeof file !== 'string') throw compiler.error(`\`file\` of an agent must be a path (text)`, field);
  if (file.includes('{{')) return;
  const refusal = rootedPathRefusal(file);
  if (refusal !== undefined) throw compiler.error(`agent file ${quoteText(file, 80)} is refused: ${refusal}`, field);
  if (!/\.ya?ml$/.test(file))
    throw compiler.error(`agent file ${quoteText(file, 80)} must be a .yaml or .yml file`, field);
}

/** One agent's answer to `task`: a persona's model call, or an agent file's sub-run. */
async function askAgent(
  context: ActionContext,
  agent: AgentRef,
  task: string | undefined,
  overrides: { timeout?: number; max_retries?: number },
  input: unknown,
): Promise<Record<string, unknown>> {
  if (agent.kind === 'persona') {
    if (task === undefined)
      throw new AgentError('INVALID_PARAMS', `\`task\` is required for agent '${agent.name}'`, { field: 'task' });
    return callAgent(context, agent.persona, task, overrides);
  }
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    throw new AgentError('INVALID_PARAMS', "`input` must be a mapping (the sub-run's input)", { field: 'input' });
  }
  const sub = await context.runAgentFile(agent.file, {
    ...(input as State | undefined),
    ...(task !== undefined ? { task } : {}),
  });
  const answer = answerOf(sub.state);
  return { content: answer, response: answer, agent: sub.agent, file: sub.file, state: sub.state, success: true };
}

/** A sub-run's answer: its final state's `response` (text as is, anything else as JSON; none: ''). */
function answerOf(state: State): string {
  const response = state['response'];
  if (response === undefined || response === null) return '';
  return typeof response === 'string' ? response : JSON.stringify(response);
}

/** One call of one persona: [system?, user: task], the persona's model settings, labelled with its name. */
async function callAgent(
  context: ActionContext,
  agent: AgentPersona,
  task: string,
  overrides: { timeout?: number; max_retries?: number },
): Promise<Record<string, unknown>> {
  const messages: Array<{ role: 'system' | 'user'; content: string }> = [];
  if (agent.system_prompt !== undefined && agent.system_prompt !== '')
    messages.push({ role: 'system', content: agent.system_prompt });
  messages.push({ role: 'user', content: task });
  const params: LlmCallParams = { messages };
  if (agent.model !== undefined) params.model = agent.model;
  if (agent.temperature !== undefined) params.temperature = agent.temperature;
  if (agent.max_tokens !== undefined) params.max_tokens = agent.max_tokens;
  const timeout = overrides.timeout ?? agent.timeout;
  if (timeout !== undefined) params.timeout = timeout;
  const retries = overrides.max_retries ?? agent.max_retries;
  if (retries !== undefined) params.max_retries = retries;
  const response = await context.callLlm(params, { label: `agent:${agent.name}` });
  return {
    content: response.content,
    response: response.content,
    usage: response.usage,
    model: response.model,
    agent: agent.name,
    success: true,
  };
}

function text(value: unknown, field: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new AgentError('INVALID_PARAMS', `\`${field}\` must render to text`, { field });
}

function integerIn(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new AgentError('INVALID_PARAMS', `\`${field}\` must be an integer from ${min} to ${max}`, { field });
  }
  return value;
}

/** Prepared params: every value a template, rendered when the node runs (some with extra names). */
type Compiled = Record<string, CompiledValue>;

function compileAll(params: Record<string, unknown>, compiler: ActionCompiler): Compiled {
  return Object.fromEntries(Object.entries(params).map(([key, value]) => [key, compiler.template(value, key)]));
}

function renderAll(compiled: Compiled, context: ActionContext, skip: readonly string[] = []): Record<string, unknown> {
  const scope = context.scope();
  return Object.fromEntries(
    Object.entries(compiled)
      .filter(([key]) => !skip.includes(key))
      .map(([key, value]) => [key, value.render(scope)]),
  );
}

const TIMEOUT = {
  type: 'number',
  exclusiveMinimum: 0,
  maximum: MODEL_TIMEOUT_SECONDS_CEILING,
  description: "seconds per attempt (overrides the agent's)",
} as const;
/** A persona name, or `{file: <agent file>}` for a sub-run. */
const AGENT = {
  oneOf: [
    { type: 'string', description: 'a name from settings.agents' },
    {
      type: 'object',
      required: ['file'],
      properties: { file: { type: 'string', description: 'an agent file of this host (a sub-run)' } },
      additionalProperties: false,
    },
  ],
} as const;
const INPUT = { type: 'object', description: "a sub-run's input (plus `task`)" } as const;

export const agentDispatch: ActionDefinition<Compiled> = {
  name: 'agent.dispatch',
  description:
    'Sends a task to one agent of settings.agents (a model persona) or {file: x.yaml} (a sub-run). Returns {response, content, agent, success}.',
  parameters: {
    type: 'object',
    required: ['agent'],
    properties: {
      agent: AGENT,
      task: { type: 'string' },
      input: INPUT,
      timeout: TIMEOUT,
      max_retries: { type: 'integer', minimum: 0, maximum: 10 },
    },
    additionalProperties: false,
  },
  prepare(params, compiler) {
    checkNames(params.agent, compiler, 'agent');
    return compileAll(params, compiler);
  },
  async run(compiled, context) {
    const params = renderAll(compiled, context);
    const agent = reference(context, params.agent, 'agent');
    const overrides: { timeout?: number; max_retries?: number } = {};
    if (typeof params.timeout === 'number') overrides.timeout = params.timeout;
    const retries = integerIn(params.max_retries, 'max_retries', 0, 10);
    if (retries !== undefined) overrides.max_retries = retries;
    const task = params.task === undefined ? undefined : text(params.task, 'task');
    return { ...(await askAgent(context, agent, task, overrides, params.input)), attempts: 1 };
  },
};

export const agentParallel: ActionDefinition<Compiled> = {
  name: 'agent.parallel',
  description: 'Sends the same task to several agents at once and aggregates: collect, vote, first or consensus.',
  parameters: {
    type: 'object',
    required: ['agents', 'task'],
    properties: {
      agents: { type: 'array', minItems: 1, maxItems: MAX_AGENTS, items: AGENT },
      task: { type: 'string' },
      input: INPUT,
      aggregation: { enum: [...AGGREGATIONS], default: 'collect' },
      max_concurrent: { type: 'integer', minimum: 1, maximum: MAX_AGENTS },
      timeout: TIMEOUT,
      consensus_threshold: { type: 'number', minimum: 0, maximum: 1, default: 0.5 },
      consensus_max_rounds: { type: 'integer', minimum: 1, maximum: MAX_CONSENSUS_ROUNDS, default: 3 },
    },
    additionalProperties: false,
  },
  prepare(params, compiler) {
    checkNames(params.agents, compiler, 'agents');
    return compileAll(params, compiler);
  },
  async run(compiled, context) {
    const params = renderAll(compiled, context);
    const agents = references(context, params.agents);
    const aggregation = (params.aggregation ?? 'collect') as Aggregation;
    if (!AGGREGATIONS.includes(aggregation))
      throw new AgentError('INVALID_PARAMS', `aggregation must be one of ${AGGREGATIONS.join(', ')}`, {
        field: 'aggregation',
      });
    const concurrency = integerIn(params.max_concurrent, 'max_concurrent', 1, MAX_AGENTS) ?? agents.length;
    const task = text(params.task, 'task');
    const overrides = typeof params.timeout === 'number' ? { timeout: params.timeout } : {};
    const round = () =>
      mapLimited(agents, concurrency, (agent) => askAgent(context, agent, task, overrides, params.input));
    const called = { agents_called: agents.map((agent) => agent.name) };

    if (aggregation === 'consensus') {
      const threshold = typeof params.consensus_threshold === 'number' ? params.consensus_threshold : 0.5;
      const maxRounds = integerIn(params.consensus_max_rounds, 'consensus_max_rounds', 1, MAX_CONSENSUS_ROUNDS) ?? 3;
      let rounds = 1;
      let outcome = consensus(await round(), threshold);
      // As TEA: the same task is asked again until enough agents agree or the rounds run out.
      while (outcome.consensus_reached !== true && rounds < maxRounds) {
        rounds++;
        outcome = consensus(await round(), threshold);
      }
      return { ...outcome, success: true, rounds, ...called };
    }
    const results = await round();
    const aggregated =
      aggregation === 'vote' ? vote(results) : aggregation === 'first' ? first(results) : collect(results);
    return { ...aggregated, success: true, ...called, raw_results: results };
  },
};

const SEQUENTIAL_EXTRAS = ['task', 'tasks', 'transform'] as const;

export const agentSequential: ActionDefinition<Compiled> = {
  name: 'agent.sequential',
  description:
    'Chains agents: each gets a task (rendered with previous_response, chain_index, chain_length), the last answer is the result. Returns {result, chain, success}.',
  parameters: {
    type: 'object',
    required: ['agents'],
    properties: {
      agents: { type: 'array', minItems: 1, maxItems: MAX_AGENTS, items: AGENT },
      input: INPUT,
      task: {
        type: 'string',
        description: 'one template for every agent; default: state.input, then previous_response',
      },
      tasks: { type: 'array', items: { type: 'string' }, description: 'one template per agent' },
      transform: { type: 'string', description: 'applied to each answer (as current_response) before the next agent' },
      early_exit_on_failure: { type: 'boolean', default: true },
      output_key: { type: 'string', default: 'sequential_result' },
    },
    additionalProperties: false,
  },
  prepare(params, compiler) {
    checkNames(params.agents, compiler, 'agents');
    if (Array.isArray(params.tasks) && Array.isArray(params.agents) && params.tasks.length !== params.agents.length) {
      throw compiler.error(`tasks has ${params.tasks.length} entries for ${params.agents.length} agents`, 'tasks');
    }
    return compileAll(params, compiler);
  },
  async run(compiled, context) {
    const params = renderAll(compiled, context, SEQUENTIAL_EXTRAS);
    const agents = references(context, params.agents);
    const outputKey = params.output_key === undefined ? 'sequential_result' : text(params.output_key, 'output_key');
    const chain: Array<Record<string, unknown>> = [];
    let previous = '';
    for (let index = 0; index < agents.length; index++) {
      const extras = { previous_response: previous, chain_index: index, chain_length: agents.length };
      const task = text(
        taskTemplate(compiled, index).render(sequentialScope(context, extras)),
        compiled.tasks !== undefined ? `tasks[${index}]` : 'task',
      );
      const result = await askAgent(context, agents[index]!, task, {}, params.input);
      chain.push({
        agent: result.agent,
        response: result.content,
        success: true,
        ...(result.file !== undefined ? { file: result.file, state: result.state } : {}),
      });
      previous = result.content as string;
      if (compiled.transform !== undefined)
        previous = text(
          compiled.transform.render(sequentialScope(context, { ...extras, current_response: previous })),
          'transform',
        );
    }
    return {
      result: previous,
      [outputKey]: previous,
      chain,
      success: true,
      agents_called: agents.map((agent) => agent.name),
    };
  },
};

/** The template for agent `index`: its `tasks` entry, else `task`, else TEA's default. */
function taskTemplate(compiled: Compiled, index: number): CompiledValue {
  if (compiled.tasks !== undefined) {
    const source = compiled.tasks.source;
    return pick(compiled.tasks, Array.isArray(source) ? index : -1);
  }
  if (compiled.task !== undefined) return compiled.task;
  const fallback = index === 0 ? 'state.input' : 'previous_response';
  return {
    source: fallback,
    isStatic: false,
    render: (scope) => (index === 0 ? (scope['state'] as State)['input'] : scope['previous_response']) ?? '',
  };
}

/** Entry `index` of a compiled list template, rendered alone. */
function pick(list: CompiledValue, index: number): CompiledValue {
  return {
    source: list.source,
    isStatic: list.isStatic,
    render(scope) {
      const rendered = list.render(scope);
      if (!Array.isArray(rendered) || index < 0 || index >= rendered.length)
        throw new AgentError('INVALID_PARAMS', '`tasks` must have one entry per agent', { field: 'tasks' });
      return rendered[index];
    },
  };
}

/** TEA renders these templates with the chain values both at the top level and inside `state`. */
function sequentialScope(context: ActionContext, extras: Record<string, unknown>) {
  return context.scope({ ...extras, state: { ...context.state, ...extras } });
}

export function agentActions(): ActionDefinition[] {
  return [agentDispatch, agentParallel, agentSequential] as ActionDefinition[];
}
