/**
 * Turns an agent file's text into an AgentSpec: YAML under limits (parse-yaml.ts), the published
 * agent JSON Schema (agent-schema.json) with closed shapes (closed-shape.ts: unknown keys with
 * suggestions, TEA keys tea-edge does not implement, unknown providers), finite numbers only, then
 * the graph checks the schema cannot express: unique node names, known goto/edge targets, one
 * body per node, typed nodes (read-node-types.ts), Python refused; unreachable nodes are warnings
 * (spec.graphWarnings), as in TEA. Every problem is collected (file order,
 * capped) and thrown as one AgentError with `details.errors` (src/errors/load-problems.ts).
 */
import type { AgentSettings } from '../core/agent-settings.js';
import { AgentError, toAgentError, type ErrorCode } from '../core/agent-error.js';
import { loadFailure, problemOf, type LoadProblem } from '../errors/load-problems.js';
import agentSchema from './agent-schema.json';
import {
  END,
  START,
  type AgentSpec,
  type EdgeSpec,
  type GotoRule,
  type GraphWarning,
  type NodeBody,
  type NodeSpec,
  type OnErrorSpec,
  type StepSpec,
} from './agent-spec.js';
import { checkClosedShape, dotted, type Path } from './closed-shape.js';
import { findNonFinite } from './finite-numbers.js';
import { parseYaml, type ParsedYaml, type YamlLimits } from './parse-yaml.js';
import type { KeyLocation } from './tea-keys.js';
import { readRunMapping, readTypedBody, type Fail as TypedFail, type Warn } from './read-node-types.js';
import { editDistance } from '../util/edit-distance.js';
import { compileSchema } from '../schema/compile-schema.js';
import type { CompiledSchema } from '../core/json-schema.js';
import { isPlainObject } from '../util/plain-object.js';
import { envNameRefusal } from './env-names.js';
import { foreignLanguageMessage } from './foreign-language.js';

export interface ReadAgentOptions {
  /** File name used in messages and as the default agent name. */
  file?: string;
  limits?: YamlLimits;
  /** Model providers the host serves besides the built-in ones (`['shell']` on a CLI started with --shell-provider). */
  hostProviders?: readonly string[];
}

/** What reading found: the spec (when its shape allows building one) and every problem. */
export interface InspectedAgentSpec {
  spec?: AgentSpec;
  problems: LoadProblem[];
  /** Keys accepted but ignored (TEA keys with no effect here), as messages. */
  warnings: string[];
}

/** Reads and checks an agent file; throws one AgentError listing every problem. */
export function readAgentSpec(source: string, options: ReadAgentOptions = {}): AgentSpec {
  const inspected = inspectAgentSpec(source, options);
  if (inspected.problems.length > 0) throw loadFailure(inspected.problems);
  return inspected.spec!;
}

/** Reads an agent file and collects every problem instead of stopping at the first. */
export function inspectAgentSpec(source: string, options: ReadAgentOptions = {}): InspectedAgentSpec {
  const file = options.file ?? 'agent.yaml';
  let parsed: ParsedYaml;
  try {
    parsed = parseYaml(source, file, options.limits);
  } catch (error) {
    return { problems: [problemOf(toAgentError(error, 'INVALID_AGENT'), file)], warnings: [] };
  }
  const problems: LoadProblem[] = [];
  const report: Report = (code, message, path, node, atKey = false) => {
    const position = atKey ? parsed.keyPositionOf(path) : parsed.positionOf(path);
    // The field: relative to the node for node problems (`with.prompt`), else the whole path.
    const fieldPath = node !== undefined && path[0] === 'nodes' ? path.slice(2) : path;
    problems.push({
      code,
      message,
      file,
      ...position,
      ...(node !== undefined ? { node } : {}),
      ...(fieldPath.length > 0 ? { field: dotted(fieldPath) } : {}),
    });
  };
  const raw = parsed.value;
  if (!isPlainObject(raw)) {
    report('INVALID_AGENT', 'an agent file must be a YAML mapping with a `nodes:` list', []);
    return { problems, warnings: [] };
  }
  const warnings: string[] = [];
  // A warning names its node and line: `validate` prints it, `--strict` makes it an error.
  const warn: Warn = (message, path) => {
    const line = parsed.keyPositionOf(path)?.line;
    const node = nodeNameAt(raw, path);
    warnings.push(
      `${node !== undefined ? `node '${node}': ` : ''}${message}${line !== undefined ? ` (line ${line})` : ''}`,
    );
  };
  checkShape(raw, report, warn, options.hostProviders ?? []);
  for (const { path, text } of findNonFinite(raw)) {
    report(
      'INVALID_AGENT',
      `\`${dotted(path)}\` is ${text}: numbers in an agent file must be finite`,
      path,
      nodeNameAt(raw, path),
    );
  }
  const checked = checkAgainstSchema(raw, report);
  if (checked === undefined) return { problems, warnings };
  // Routes that could not be read are reported; the nodes are still read and compiled without
  // them, so the file's other blockers (Python and Prolog blocks, unknown actions) are listed too.
  const document = withoutRoutes(raw, checked);

  const nodes: NodeSpec[] = (document.nodes as Array<Record<string, any>>).map((node, index) =>
    readNode(node, index, parsed, file, problems, warn),
  );
  const byName = new Map<string, NodeSpec>();
  for (const node of nodes) {
    if (byName.has(node.name))
      report('INVALID_AGENT', `duplicate node name '${node.name}'`, node.path.concat('name'), node.name);
    else byName.set(node.name, node);
  }
  const edges: EdgeSpec[] = ((document.edges ?? []) as Array<Record<string, any>>).map((edge, index) => ({
    from: edge.from,
    to: Array.isArray(edge.to) ? edge.to : [edge.to],
    when: edge.when,
    ...(edge.condition !== undefined
      ? { condition: typeof edge.condition === 'object' ? edge.condition.value : edge.condition }
      : {}),
    parallel: edge.parallel === true || edge.type === 'parallel',
    fanIn: edge.fan_in,
    failFast: edge.fail_fast === true,
    path: ['edges', index],
  }));

  const known = (target: string) => target === END || byName.has(target);
  const suggest = (target: string) => {
    const close = [...byName.keys()].filter(
      (name) => name.toLowerCase() === target.toLowerCase() || editDistance(name, target) <= 2,
    );
    return close.length > 0
      ? ` (did you mean ${close.map((name) => `'${name}'`).join(', ')}?)`
      : `; nodes are: ${[...byName.keys()].join(', ')}`;
  };
  for (const node of nodes) {
    const targets = typeof node.goto === 'string' ? [node.goto] : (node.goto ?? []).map((rule) => rule.to);
    targets.forEach((target, ruleIndex) => {
      if (!known(target)) {
        const path =
          typeof node.goto === 'string' ? node.path.concat('goto') : node.path.concat('goto', ruleIndex, 'to');
        report('INVALID_AGENT', `goto target '${target}' is not a node${suggest(target)}`, path, node.name);
      }
    });
  }
  for (const node of nodes) {
    if (node.body.kind === 'dynamic_parallel' && !byName.has(node.body.fanIn)) {
      report(
        'INVALID_AGENT',
        `fan_in node '${node.body.fanIn}' is not a node${suggest(node.body.fanIn)}`,
        node.path.concat('fan_in'),
        node.name,
      );
    }
  }
  for (const edge of edges) {
    if (edge.from !== START && !byName.has(edge.from))
      report('INVALID_AGENT', `edge from unknown node '${edge.from}'${suggest(edge.from)}`, edge.path.concat('from'));
    for (const target of edge.to) {
      if (!known(target))
        report('INVALID_AGENT', `edge to unknown node '${target}'${suggest(target)}`, edge.path.concat('to'));
    }
    if (edge.from === START && (edge.condition !== undefined || edge.when !== undefined)) {
      report(
        'INVALID_AGENT',
        'an edge from __start__ cannot be conditional in tea-edge (the entry is chosen before any node runs); start at a node and route from it with `goto` rules or conditional edges',
        edge.path.concat(edge.condition !== undefined ? 'condition' : 'when'),
      );
    }
    if (edge.parallel) {
      if (edge.condition !== undefined || edge.when !== undefined)
        report(
          'INVALID_AGENT',
          'a parallel edge always fans out: it has no `condition:` or `when:` (route to the fan-out node with a conditional edge instead)',
          edge.path,
        );
      if (edge.fanIn === undefined) report('INVALID_AGENT', 'a parallel edge needs `fan_in: <node>`', edge.path);
      else if (!byName.has(edge.fanIn))
        report(
          'INVALID_AGENT',
          `fan_in node '${edge.fanIn}' is not a node${suggest(edge.fanIn)}`,
          edge.path.concat('fan_in'),
        );
    } else if (edge.condition !== undefined && edge.when !== undefined && typeof edge.when !== 'boolean') {
      report(
        'INVALID_AGENT',
        'with `condition:`, `when:` is the boolean the condition must give (`true` or `false`); a string `when:` is a condition of its own',
        edge.path.concat('when'),
      );
    } else if (edge.to.length > 1) {
      report(
        'INVALID_AGENT',
        'an edge with several targets must be `parallel: true` with a `fan_in`',
        edge.path.concat('to'),
      );
    }
  }
  const config = (document.config ?? {}) as Record<string, any>;
  for (const key of ['interrupt_before', 'interrupt_after'] as const) {
    ((config[key] ?? []) as string[]).forEach((name, index) => {
      if (!byName.has(name))
        report('INVALID_AGENT', `config.${key} names unknown node '${name}'${suggest(name)}`, ['config', key, index]);
    });
  }

  // The schema check above passed, so settings has the closed shape AgentSettings describes.
  const settings: AgentSettings = document.settings ?? {};
  (settings.env ?? []).forEach((name, index) => {
    const refusal = envNameRefusal(name);
    if (refusal !== undefined) report('INVALID_AGENT', `settings.env: ${refusal}`, ['settings', 'env', index]);
  });
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
    warnings,
    positionOf: parsed.positionOf,
    contentLineOf: parsed.contentLineOf,
    keyPositionOf: parsed.keyPositionOf,
  };
  for (const node of nodes) {
    const target = retryCorrectionTarget(node.body);
    if (target !== undefined && !nodes.some((candidate) => candidate.name === target)) {
      report(
        'INVALID_PARAMS',
        `retry.loop: there is no node '${target}' to correct with`,
        node.path.concat('with', 'correct'),
        node.name,
      );
    }
  }
  spec.graphWarnings = graphWarnings(spec);
  for (const warning of spec.graphWarnings)
    warnings.push(warning.line !== undefined ? `${warning.message} (line ${warning.line})` : warning.message);
  return { spec, problems, warnings };
}

type Report = (code: ErrorCode, message: string, path: Path, node?: string, atKey?: boolean) => void;

/** Unknown keys, TEA-only keys and unknown providers in the whole file; keys accepted with a warning go to `warn`. */
function checkShape(document: Record<string, any>, report: Report, warn: Warn, hostProviders: readonly string[]): void {
  const issues = checkClosedShape(document, agentSchema, [], {
    root: agentSchema,
    hostProviders,
    code: 'INVALID_AGENT',
    locationOf: keyLocation,
    describe: (path) => describePath(document, path),
  });
  for (const issue of issues) {
    if (issue.warning === true) warn(issue.message, issue.path);
    else report(issue.code, issue.message, issue.path, nodeNameAt(document, issue.path), issue.atKey);
  }
}

function keyLocation(path: Path): KeyLocation | undefined {
  if (path.length === 0) return 'top';
  const [first, second] = path;
  if (path.length === 1 && (first === 'settings' || first === 'config')) return first;
  if (path.length === 2 && first === 'settings' && second === 'llm') return 'settings.llm';
  if (path.length === 2 && first === 'nodes' && typeof second === 'number') return 'node';
  if (path.length === 2 && first === 'edges' && typeof second === 'number') return 'edge';
  return undefined;
}

function describePath(document: Record<string, any>, path: Path): string {
  if (path.length === 0) return 'the agent file (top level)';
  const node = nodeNameAt(document, path);
  if (path[0] === 'nodes' && node !== undefined) {
    const rest = path.slice(2);
    return rest.length === 0 ? `node '${node}'` : `\`${dotted(rest)}\` of node '${node}'`;
  }
  return `\`${dotted(path)}\``;
}

/** The name of the node a path points into, when it does. */
function nodeNameAt(document: Record<string, any>, path: Path): string | undefined {
  if (path[0] !== 'nodes' || typeof path[1] !== 'number') return undefined;
  const name = document.nodes?.[path[1]]?.name;
  return typeof name === 'string' ? name : undefined;
}

/** Throws the problem of one node's body (a body is read whole or not at all). */
type Fail = (code: ErrorCode, message: string, path: Path, node?: string) => never;
/** Records a problem thrown while reading a part of a node, which then reads as a pass-through. */
type Note = (error: unknown) => void;

/** Reads one node; a body that cannot be read is reported and replaced by a pass-through. */
function readNode(
  raw: Record<string, any>,
  index: number,
  parsed: ParsedYaml,
  file: string,
  problems: LoadProblem[],
  warn: Warn,
): NodeSpec {
  const path: Path = ['nodes', index];
  const name = raw.name as string;
  const fail: Fail = (code, message, failPath, node) => {
    const field = failPath.length > 2 ? dotted(failPath.slice(2)) : undefined;
    throw new AgentError(code, message, {
      file,
      ...parsed.positionOf(failPath),
      ...(node !== undefined ? { node } : {}),
      ...(field !== undefined ? { field } : {}),
    });
  };
  // A problem inside one step (or one loop or branch item) is kept and reading goes on, so every
  // blocker of a node is reported at once (issue 13: a porter sees all Python and Prolog blocks).
  const note: Note = (error) =>
    problems.push(problemOf(toAgentError(error, 'INVALID_AGENT', { file, node: name }), file));
  let body: NodeBody;
  try {
    body = readBody(raw, path, name, fail, parsed, note, warn);
  } catch (error) {
    note(error);
    body = { kind: 'pass' };
  }
  const node: NodeSpec = {
    name,
    index,
    body,
    fanIn: raw.fan_in === true,
    onError: readOnError(raw),
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

function readBody(
  raw: Record<string, any>,
  path: Path,
  node: string,
  fail: Fail,
  parsed: ParsedYaml,
  note: Note,
  warn: Warn,
): NodeBody {
  const failHere: TypedFail = (code, message, failPath) => fail(code, message, failPath, node);
  const typed = readTypedBody(
    raw,
    path,
    failHere,
    (item, itemPath) => readBody(item, itemPath, node, fail, parsed, note, warn),
    note,
    warn,
  );
  if (typed !== undefined) return typed;
  if (raw.script !== undefined && raw.run === undefined) raw = { ...raw, run: raw.script };
  if (raw.output_key !== undefined && raw.output === undefined) raw = { ...raw, output: raw.output_key };
  const action = raw.uses ?? raw.action;
  const bodies = [action !== undefined, raw.run !== undefined, raw.steps !== undefined].filter(Boolean).length;
  if (raw.uses !== undefined && raw.action !== undefined)
    fail('INVALID_AGENT', 'use either `uses:` or `action:`, not both', path, node);
  if (bodies > 1) fail('INVALID_AGENT', 'a node has one body: `uses:`/`action:`, `run:` or `steps:`', path, node);
  if (raw.with !== undefined && action === undefined)
    fail('INVALID_AGENT', '`with:` needs `uses:` (or `action:`)', path.concat('with'), node);
  if (action !== undefined) {
    if (typeof action !== 'string') return fail('INVALID_AGENT', '`uses:` must be an action name', path, node);
    const body: NodeBody = { kind: 'action', action, with: (raw.with ?? {}) as Record<string, unknown> };
    if (raw.output !== undefined) body.output = raw.output;
    return body;
  }
  if (raw.run !== undefined) {
    if (typeof raw.run === 'object' && raw.run !== null && !Array.isArray(raw.run)) {
      if (raw.language !== undefined)
        fail(
          'INVALID_AGENT',
          '`language:` goes with `run:` as a string; in `run: {type: …}` the type says it',
          path.concat('language'),
          node,
        );
      return readRunMapping(raw.run, path, failHere, parsed.contentLineOf);
    }
    if (typeof raw.run !== 'string')
      return fail('INVALID_AGENT', '`run:` must be Lua code as a string', path.concat('run'), node);
    const language = raw.language ?? (/^\s*%\s*prolog\b/i.test(raw.run) ? 'prolog' : 'lua');
    const firstRunLine = parsed.contentLineOf(path.concat('run')) ?? 1;
    if (language === 'prolog') return { kind: 'prolog', code: raw.run, lineOffset: firstRunLine - 1 };
    if (language === 'python') return { kind: 'python', code: raw.run, lineOffset: firstRunLine - 1 };
    if (language !== 'lua')
      fail(
        'UNSUPPORTED_LANGUAGE',
        foreignLanguageMessage(String(language), `this \`run:\` (language: ${String(language)})`),
        path.concat('language'),
        node,
      );
    const firstLine = parsed.contentLineOf(path.concat('run')) ?? 1;
    return { kind: 'lua', code: raw.run, lineOffset: firstLine - 1 };
  }
  if (raw.steps !== undefined) {
    const steps: StepSpec[] = (raw.steps as Array<Record<string, any>>).map((step, stepIndex) => {
      const stepPath = path.concat('steps', stepIndex);
      const name = typeof step?.name === 'string' ? step.name : `step ${stepIndex + 1}`;
      try {
        if (typeof step !== 'object' || step === null || Array.isArray(step))
          return fail('INVALID_AGENT', 'each step must be a mapping', stepPath, node);
        const body = readBody(step, stepPath, node, fail, parsed, note, warn);
        if (body.kind === 'steps') fail('INVALID_AGENT', 'steps cannot nest steps', stepPath, node);
        return { name, body, path: stepPath };
      } catch (error) {
        note(error);
        return { name, body: { kind: 'pass' }, path: stepPath };
      }
    });
    return { kind: 'steps', steps };
  }
  return { kind: 'pass' };
}

/** The `correct:` node of a retry.loop node (TEA-YAML-005), which the action runs itself. */
function retryCorrectionTarget(body: NodeBody): string | undefined {
  if (body.kind !== 'action' || (body.action !== 'retry.loop' && body.action !== 'actions.retry_loop'))
    return undefined;
  return typeof body.with.correct === 'string' ? body.with.correct : undefined;
}

/**
 * Graph warnings TEA gives too (it runs such files): a node that nothing routes to from the entry,
 * and several plain edges from `__start__` (TEA follows only the first). `validate --strict` makes
 * them errors. A dynamic_parallel node leads to its fan_in node as well as to its route.
 */
function graphWarnings(spec: AgentSpec): GraphWarning[] {
  const warnings: GraphWarning[] = [];
  const place = (path: Path) => spec.positionOf(path) ?? {};
  const successors = new Map<string, string[]>();
  const edgesFrom = new Map<string, EdgeSpec[]>();
  for (const edge of spec.edges) edgesFrom.set(edge.from, [...(edgesFrom.get(edge.from) ?? []), edge]);
  spec.nodes.forEach((node, index) => {
    let next: string[];
    if (node.goto !== undefined) next = typeof node.goto === 'string' ? [node.goto] : node.goto.map((rule) => rule.to);
    else if (edgesFrom.has(node.name))
      next = edgesFrom.get(node.name)!.flatMap((edge) => [...edge.to, ...(edge.fanIn ? [edge.fanIn] : [])]);
    else next = [spec.nodes[index + 1]?.name ?? END];
    if (node.body.kind === 'dynamic_parallel') next.push(node.body.fanIn);
    successors.set(node.name, next);
  });
  const startEdges = edgesFrom.get(START) ?? [];
  const plainStarts = startEdges.filter(
    (edge) => !edge.parallel && edge.condition === undefined && edge.when === undefined,
  );
  if (plainStarts.length > 1) {
    const [first, ...rest] = plainStarts;
    for (const edge of rest) {
      warnings.push({
        message: `edge from __start__ to '${edge.to[0]}' is never followed: TEA follows only the first plain edge from __start__ (to '${first!.to[0]}'); route onward from that node`,
        ...place(edge.path),
      });
    }
  }
  const entry = startEdges[0]?.to[0] ?? spec.nodes[0]!.name;
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
    const target = retryCorrectionTarget(node.body);
    if (target !== undefined && seen.has(node.name)) seen.add(target);
  }
  for (const node of spec.nodes) {
    if (!seen.has(node.name)) {
      warnings.push({
        message: `node '${node.name}' can never run: no goto, edge or list order leads to it from the entry '${entry}'`,
        node: node.name,
        ...place(node.path.concat('name')),
      });
    }
  }
  return warnings;
}

/**
 * The JSON Schema's own checks (types, enums, patterns, bounds), one problem per place. Unknown
 * keys are left to checkShape (which suggests the closest key). Returns false when a problem sits
 * where the spec is built from (nodes, names, bodies, routes, edges, config): then nothing more
 * can be checked safely.
 */
/**
 * The parts of a file whose routes could not be read: `edges`, `config`, or the `goto` of some nodes.
 * Reading goes on without them (the file fails to load anyway, with their problems listed).
 */
interface BrokenRoutes {
  edges: boolean;
  config: boolean;
  gotoOf: Set<number>;
}

function withoutRoutes(document: Record<string, any>, broken: BrokenRoutes): Record<string, any> {
  if (!broken.edges && !broken.config && broken.gotoOf.size === 0) return document;
  const copy = { ...document };
  if (broken.edges) delete copy.edges;
  if (broken.config) delete copy.config;
  if (broken.gotoOf.size > 0) {
    copy.nodes = (document.nodes as Array<Record<string, any>>).map((node, index) => {
      if (!broken.gotoOf.has(index)) return node;
      const { goto: _unread, ...rest } = node;
      return rest;
    });
  }
  return copy;
}

/**
 * The agent schema, compiled once by the engine's own validator (src/schema/, which every run
 * uses for `output_schema` and action parameters anyway, so a loader bundle carries no second
 * validator). The schema is ours and trusted; the caps are the YAML parser's, which come first.
 */
let agentSchemaValidator: CompiledSchema | undefined;
function compiledAgentSchema(): CompiledSchema {
  agentSchemaValidator ??= compileSchema(agentSchema, {
    where: {},
    limits: {
      maxErrors: MAX_SCHEMA_PROBLEMS,
      maxErrorMessageChars: 2000,
      maxValidationWork: 20_000_000,
      maxInstanceDepth: 128,
      maxInstanceNodes: 1_000_000,
      maxInstanceChars: 4 * 1024 * 1024,
    },
  });
  return agentSchemaValidator;
}

function checkAgainstSchema(document: Record<string, unknown>, report: Report): BrokenRoutes | undefined {
  const broken: BrokenRoutes = { edges: false, config: false, gotoOf: new Set() };
  const result = compiledAgentSchema().validate(document);
  if (result.valid) return broken;
  const seen = new Set<string>();
  let usable = true;
  for (const error of result.errors) {
    if (error.keyword === 'maxErrors') {
      usable = false; // unread problems may sit anywhere
      break;
    }
    if (error.keyword === 'additionalProperties' || error.keyword === 'false') continue;
    const { pointer, message } = innerProblem(error.message, error.path) ?? {
      pointer: error.path,
      message: error.message,
    };
    if (seen.has(pointer)) continue;
    seen.add(pointer);
    const path = pointerToPath(pointer);
    const value = valueAt(document, path);
    if (isNonFinite(value)) continue; // reported by findNonFinite
    const where = path.length > 0 ? dotted(path) : 'the file';
    report(
      'INVALID_AGENT',
      `${where}: ${schemaProblemText(error.keyword, message, value, pointer)}`,
      path,
      nodeNameAt(document, path),
    );
    if (path[0] === 'edges') broken.edges = true;
    else if (path[0] === 'config') broken.config = true;
    else if (path[0] === 'nodes' && typeof path[1] === 'number' && path[2] === 'goto') broken.gotoOf.add(path[1]);
    else if (isStructural(path)) usable = false;
  }
  return usable ? broken : undefined;
}

/** Schema problems reported at most (a load lists 50). */
const MAX_SCHEMA_PROBLEMS = 100;

/** Node keys the spec's shape is built from (a wrong type there cannot be read past). */
const STRUCTURAL_NODE_KEYS = new Set([
  'name',
  'goto',
  'steps',
  'uses',
  'action',
  'run',
  'script',
  'with',
  'output',
  'output_key',
  'language',
]);

function isStructural(path: Path): boolean {
  if (path.length === 0) return true;
  if (path[0] === 'edges' || path[0] === 'config') return true;
  if (path[0] !== 'nodes') return false;
  return path.length <= 2 || STRUCTURAL_NODE_KEYS.has(String(path[2]));
}

/**
 * A schema error as a load problem says it: a ceiling names itself as one (`5000 is above the
 * ceiling 3600`, the ceiling read from the validator's own "is greater than" message); a failed
 * `oneOf` / `anyOf` gives the reasons of its branches without repeating the place, which the
 * problem already names.
 */
/** The reasons a failed `oneOf` / `anyOf` gives for its branches (`<pointer> <message>` each), or undefined for another error. */
function branchReasons(message: string): string[] | undefined {
  return /^Value (?:must match exactly one of the \d+ schemas; it matches none|does not match any of the \d+ allowed schemas): (.*)$/
    .exec(message)?.[1]
    ?.split('; ');
}

/**
 * A failed `oneOf` / `anyOf` whose value has the type of one form but not its contents (`goto:` a
 * list whose rule has `to: 5`): that form's first error, at its own place, as the problem. Undefined
 * when the value's type fits no form or several.
 */
function innerProblem(message: string, pointer: string): { pointer: string; message: string } | undefined {
  const reasons = branchReasons(message);
  if (reasons === undefined) return undefined;
  const inner = reasons.filter((reason) => reason.startsWith(`${pointer}/`));
  const typeOnly = reasons.filter((reason) => reason.startsWith(`${pointer} Instance type `));
  if (inner.length !== 1 || inner.length + typeOnly.length !== reasons.length) return undefined;
  const space = inner[0]!.indexOf(' ');
  return { pointer: inner[0]!.slice(0, space), message: inner[0]!.slice(space + 1) };
}

function schemaProblemText(keyword: string, message: string, value: unknown, pointer: string): string {
  const ceiling = keyword === 'maximum' ? /is greater than (?:or equal to )?(\S+)\.$/.exec(message)?.[1] : undefined;
  if (ceiling !== undefined) return `${String(value)} is above the ceiling ${ceiling}`;
  const text = pointer === '' ? message : message.split(`${pointer} `).join('');
  // Branches that all failed on the value's type (`goto: {to: b}`): one sentence naming every type allowed.
  const types = branchReasons(text)?.map((reason) =>
    /^Instance type ("[^"]+") is invalid\. Expected (.+)\.$/.exec(reason),
  );
  if (types !== undefined && types.length > 1 && types.every((match) => match !== null && match[1] === types[0]![1])) {
    return `Instance type ${types[0]![1]} is invalid. Expected ${types.map((match) => match![2]).join(' or ')}.`;
  }
  return text;
}

function valueAt(document: unknown, path: Path): unknown {
  let value = document;
  for (const part of path)
    value = typeof value === 'object' && value !== null ? (value as Record<string | number, unknown>)[part] : undefined;
  return value;
}

function isNonFinite(value: unknown): boolean {
  return typeof value === 'number' && !Number.isFinite(value);
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
