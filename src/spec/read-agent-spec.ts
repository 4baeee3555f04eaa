/**
 * Turns an agent file's text into an AgentSpec: YAML under limits (parse-yaml.ts), the published
 * agent JSON Schema (agent-schema.json), then the graph checks the schema cannot express: unique
 * node names, known goto/edge targets, reachable nodes, one body per node, Python refused.
 * Every problem is an AgentError naming file:line:column.
 */
import { Validator } from '@cfworker/json-schema';
import { AgentError, type ErrorCode } from '../errors/agent-error.js';
import agentSchema from './agent-schema.json';
import type { AgentSpec, EdgeSpec, GotoRule, NodeBody, NodeSpec, OnErrorSpec, StepSpec } from './agent-spec.js';
import { parseYaml, type ParsedYaml, type YamlLimits } from './parse-yaml.js';
import { editDistance } from '../util/edit-distance.js';

export interface ReadAgentOptions {
  /** File name used in messages and as the default agent name. */
  file?: string;
  limits?: YamlLimits;
}

const KNOWN_TOP_LEVEL = new Set(Object.keys((agentSchema as { properties: object }).properties));
const END = '__end__';
const START = '__start__';

export function readAgentSpec(source: string, options: ReadAgentOptions = {}): AgentSpec {
  const file = options.file ?? 'agent.yaml';
  const parsed = parseYaml(source, file, options.limits);
  const fail: Fail = (code: ErrorCode, message: string, path: Array<string | number>, node?: string): never => {
    throw new AgentError(code, message, { file, ...parsed.positionOf(path), ...(node !== undefined ? { node } : {}) });
  };
  fail.parsed = parsed;
  const raw = parsed.value;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return fail('INVALID_AGENT', 'an agent file must be a YAML mapping with a `nodes:` list', []);
  }
  checkAgainstSchema(raw, parsed, file);
  const document = raw as Record<string, any>;

  const nodes: NodeSpec[] = (document.nodes as Array<Record<string, any>>).map((node, index) =>
    readNode(node, index, fail),
  );
  const byName = new Map<string, NodeSpec>();
  for (const node of nodes) {
    if (byName.has(node.name)) fail('INVALID_AGENT', `duplicate node name '${node.name}'`, node.path.concat('name'), node.name);
    byName.set(node.name, node);
  }
  const edges: EdgeSpec[] = ((document.edges ?? []) as Array<Record<string, any>>).map((edge, index) => ({
    from: edge.from,
    to: Array.isArray(edge.to) ? edge.to : [edge.to],
    when: edge.when,
    parallel: edge.parallel === true || edge.type === 'parallel',
    fanIn: edge.fan_in,
    failFast: edge.fail_fast === true,
    path: ['edges', index],
  }));

  const known = (target: string) => target === END || byName.has(target);
  const suggest = (target: string) => {
    const close = [...byName.keys()].filter((name) => name.toLowerCase() === target.toLowerCase() || editDistance(name, target) <= 2);
    return close.length > 0 ? ` (did you mean ${close.map((name) => `'${name}'`).join(', ')}?)` : `; nodes are: ${[...byName.keys()].join(', ')}`;
  };
  for (const node of nodes) {
    const targets = typeof node.goto === 'string' ? [node.goto] : (node.goto ?? []).map((rule) => rule.to);
    targets.forEach((target, ruleIndex) => {
      if (!known(target)) {
        const path = typeof node.goto === 'string' ? node.path.concat('goto') : node.path.concat('goto', ruleIndex, 'to');
        fail('INVALID_AGENT', `goto target '${target}' is not a node${suggest(target)}`, path, node.name);
      }
    });
  }
  for (const edge of edges) {
    if (edge.from !== START && !byName.has(edge.from)) fail('INVALID_AGENT', `edge from unknown node '${edge.from}'${suggest(edge.from)}`, edge.path.concat('from'));
    for (const target of edge.to) {
      if (!known(target)) fail('INVALID_AGENT', `edge to unknown node '${target}'${suggest(target)}`, edge.path.concat('to'));
    }
    if (edge.parallel) {
      if (edge.fanIn === undefined) fail('INVALID_AGENT', 'a parallel edge needs `fan_in: <node>`', edge.path);
      else if (!byName.has(edge.fanIn)) fail('INVALID_AGENT', `fan_in node '${edge.fanIn}' is not a node${suggest(edge.fanIn)}`, edge.path.concat('fan_in'));
    } else if (edge.to.length > 1) {
      fail('INVALID_AGENT', 'an edge with several targets must be `parallel: true` with a `fan_in`', edge.path.concat('to'));
    }
  }
  const config = (document.config ?? {}) as Record<string, any>;
  for (const key of ['interrupt_before', 'interrupt_after'] as const) {
    ((config[key] ?? []) as string[]).forEach((name, index) => {
      if (!byName.has(name)) fail('INVALID_AGENT', `config.${key} names unknown node '${name}'${suggest(name)}`, ['config', key, index]);
    });
  }

  const settings = (document.settings ?? {}) as Record<string, any>;
  const spec: AgentSpec = {
    name: document.name ?? defaultName(file),
    description: document.description,
    version: document.version,
    file,
    inputSchema: document.input_schema,
    initialState: document.initial_state ?? {},
    variables: document.variables ?? {},
    schemas: document.schemas ?? {},
    settings,
    limits: { max_steps: 1000, ...(settings.limits ?? {}) },
    nodes,
    edges,
    interruptBefore: config.interrupt_before ?? [],
    interruptAfter: config.interrupt_after ?? [],
    raiseExceptions: config.raise_exceptions === true,
    unknownKeys: Object.keys(document).filter((key) => !KNOWN_TOP_LEVEL.has(key)),
    positionOf: parsed.positionOf,
    contentLineOf: parsed.contentLineOf,
  };
  checkReachable(spec, fail);
  return spec;
}

type Fail = ((code: ErrorCode, message: string, path: Array<string | number>, node?: string) => never) & {
  parsed?: ParsedYaml;
};

function readNode(raw: Record<string, any>, index: number, fail: Fail): NodeSpec {
  const path: Array<string | number> = ['nodes', index];
  const name = raw.name as string;
  const onError = readOnError(raw);
  const node: NodeSpec = {
    name,
    index,
    body: readBody(raw, path, name, fail),
    fanIn: raw.fan_in === true,
    onError,
    path,
  };
  if (raw.goto !== undefined) node.goto = raw.goto as string | GotoRule[];
  if (raw.interrupt !== undefined) node.interrupt = raw.interrupt;
  if (raw.timeout_ms !== undefined) node.timeoutMs = raw.timeout_ms;
  return node;
}

function readOnError(raw: Record<string, any>): OnErrorSpec {
  const value = raw.on_error;
  if (typeof value === 'object' && value !== null) {
    return { mode: value.mode ?? 'retry', maxRetries: value.max_retries ?? 2, backoffMs: value.backoff_ms ?? 100 };
  }
  return { mode: value ?? 'raise', maxRetries: raw.max_retries ?? 2, backoffMs: 100 };
}

function readBody(raw: Record<string, any>, path: Array<string | number>, node: string, fail: Fail): NodeBody {
  if (raw.script !== undefined && raw.run === undefined) raw = { ...raw, run: raw.script };
  if (raw.output_key !== undefined && raw.output === undefined) raw = { ...raw, output: raw.output_key };
  const action = raw.uses ?? raw.action;
  const bodies = [action !== undefined, raw.run !== undefined, raw.steps !== undefined].filter(Boolean).length;
  if (raw.uses !== undefined && raw.action !== undefined) fail('INVALID_AGENT', 'use either `uses:` or `action:`, not both', path, node);
  if (bodies > 1) fail('INVALID_AGENT', 'a node has one body: `uses:`/`action:`, `run:` or `steps:`', path, node);
  if (raw.with !== undefined && action === undefined) fail('INVALID_AGENT', '`with:` needs `uses:` (or `action:`)', path.concat('with'), node);
  if (action !== undefined) {
    if (typeof action !== 'string') return fail('INVALID_AGENT', '`uses:` must be an action name', path, node);
    const body: NodeBody = { kind: 'action', action, with: (raw.with ?? {}) as Record<string, unknown> };
    if (raw.output !== undefined) body.output = raw.output;
    return body;
  }
  if (raw.run !== undefined) {
    if (typeof raw.run !== 'string') return fail('INVALID_AGENT', '`run:` must be Lua code as a string', path.concat('run'), node);
    const language = raw.language ?? 'lua';
    if (language !== 'lua') {
      fail('UNSUPPORTED_LANGUAGE', `language '${language}' is not supported: tea-edge runs inline code in Lua (write the node's run: in Lua)`, path.concat('language'), node);
    }
    const firstLine = fail.parsed?.contentLineOf(path.concat('run')) ?? 1;
    return { kind: 'lua', code: raw.run, lineOffset: firstLine - 1 };
  }
  if (raw.steps !== undefined) {
    const steps: StepSpec[] = (raw.steps as Array<Record<string, any>>).map((step, stepIndex) => {
      const stepPath = path.concat('steps', stepIndex);
      if (typeof step !== 'object' || step === null || Array.isArray(step)) return fail('INVALID_AGENT', 'each step must be a mapping', stepPath, node);
      const body = readBody(step, stepPath, node, fail);
      if (body.kind === 'steps') fail('INVALID_AGENT', 'steps cannot nest steps', stepPath, node);
      return { name: typeof step.name === 'string' ? step.name : `step ${stepIndex + 1}`, body, path: stepPath };
    });
    return { kind: 'steps', steps };
  }
  return { kind: 'pass' };
}

function checkReachable(spec: AgentSpec, fail: Fail): void {
  const successors = new Map<string, string[]>();
  const edgesFrom = new Map<string, EdgeSpec[]>();
  for (const edge of spec.edges) edgesFrom.set(edge.from, [...(edgesFrom.get(edge.from) ?? []), edge]);
  spec.nodes.forEach((node, index) => {
    let next: string[];
    if (node.goto !== undefined) next = typeof node.goto === 'string' ? [node.goto] : node.goto.map((rule) => rule.to);
    else if (edgesFrom.has(node.name)) next = edgesFrom.get(node.name)!.flatMap((edge) => [...edge.to, ...(edge.fanIn ? [edge.fanIn] : [])]);
    else next = [spec.nodes[index + 1]?.name ?? END];
    successors.set(node.name, next);
  });
  const startEdges = edgesFrom.get(START);
  const entry = startEdges?.[0]?.to[0] ?? spec.nodes[0]!.name;
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const next of successors.get(queue.pop()!) ?? []) {
      if (next !== END && !seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  // retry.loop runs its `correct:` node itself (TEA-YAML-005), so that node is reached through it.
  for (const node of spec.nodes) {
    const body = node.body;
    if (body.kind !== 'action' || (body.action !== 'retry.loop' && body.action !== 'actions.retry_loop') || typeof body.with.correct !== 'string') continue;
    if (!successors.has(body.with.correct)) fail('INVALID_PARAMS', `retry.loop: there is no node '${body.with.correct}' to correct with`, node.path.concat('with', 'correct'), node.name);
    if (seen.has(node.name)) seen.add(body.with.correct);
  }
  for (const node of spec.nodes) {
    if (!seen.has(node.name)) {
      fail('INVALID_AGENT', `node '${node.name}' can never run: no goto, edge or list order leads to it`, node.path.concat('name'), node.name);
    }
  }
}

function checkAgainstSchema(raw: unknown, parsed: ParsedYaml, file: string): void {
  const validator = new Validator(agentSchema as object, '7', false);
  const result = validator.validate(raw);
  if (result.valid) return;
  const leaves = result.errors.filter((error) => !/subschema|does not match schema|Items did not match|did not match any/i.test(error.error));
  const error = leaves[0] ?? result.errors[0]!;
  const path = pointerToPath(error.instanceLocation);
  const where = path.length > 0 ? path.join('.') : 'the file';
  throw new AgentError('INVALID_AGENT', `${where}: ${error.error}`, {
    file,
    ...parsed.positionOf(path),
    details: { keyword: error.keyword, instance_path: error.instanceLocation.replace(/^#/, ''), errors: leaves.slice(0, 10).map((e) => ({ path: e.instanceLocation, message: e.error })) },
  });
}

function pointerToPath(pointer: string): Array<string | number> {
  return pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part !== '')
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part.replaceAll('~1', '/').replaceAll('~0', '~')));
}

function defaultName(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? 'agent';
  return base.replace(/\.(ya?ml)$/i, '') || 'agent';
}
