/**
 * Compiles an AgentSpec: resolves every action (UNKNOWN_ACTION with suggestions), checks every
 * `with:` against the action's closed parameter schema (unknown keys with suggestions), parses
 * every template once, syntax-checks every Lua chunk (LUA_SYNTAX with line), compiles schemas,
 * lets actions validate their parameters (`prepare`), and builds each node's route. Problems are
 * collected across nodes (each node part stops at its first) and thrown together.
 */
import type { ActionCompiler, ActionDefinition } from '../core/action.js';
import { createRegistry, type ActionRegistry } from '../actions/registry.js';
import { AgentError, toAgentError, type ErrorCode, type ErrorLocation } from '../core/agent-error.js';
import { loadFailure, problemOf, type LoadProblem } from '../errors/load-problems.js';
import type { ScriptSandboxes } from '../core/script-sandbox.js';
import { compileSchema } from '../schema/compile-schema.js';
import { END, START, type AgentSpec, type NodeBody, type NodeSpec } from '../spec/agent-spec.js';
import { checkClosedShape, dotted, type Path } from '../spec/closed-shape.js';
import { findNonFinite } from '../spec/finite-numbers.js';
import { compileCondition, compileValue } from '../templates/index.js';
import type { CompiledAgent, CompiledBody, CompiledCondition, CompiledNode, CompiledRoute } from './compiled-agent.js';
import { foreignLanguageMessage } from '../spec/foreign-language.js';
import { foreignLanguageOf } from '../util/python-detector.js';
import { sandboxFor } from './script-sandboxes.js';

export interface CompileOptions {
  /**
   * The actions agents may name. None: an empty registry, so every action is refused with
   * UNKNOWN_ACTION naming the import that adds it (`details.import`). The main entry's loadAgent
   * passes every built-in action (src/builtins.ts); `tea-edge/engine` leaves the choice to the host.
   */
  registry?: ActionRegistry;
  /** Schemas the host registers, referenced by `$ref: <name>`, besides the agent's `schemas:`. */
  schemas?: Record<string, Record<string, unknown>>;
  /**
   * The script sandboxes the host provides (`{ lua: luaSandbox }`); inline code in a language
   * left out fails with SCRIPT_ENGINE_NOT_LOADED. The library's main entry passes Lua by default.
   */
  scripts?: ScriptSandboxes;
  /** Model providers the host serves besides the built-in ones (`['shell']` on a CLI started with --shell-provider). */
  hostProviders?: readonly string[];
}

/** What compiling found: the agent when nothing failed, and every problem. */
export interface InspectedAgent {
  agent?: CompiledAgent;
  problems: LoadProblem[];
}

/** Compiles a spec; throws one AgentError listing every problem (`details.errors`). */
export function compileAgent(spec: AgentSpec, options: CompileOptions = {}): CompiledAgent {
  const { agent, problems } = inspectCompile(spec, options);
  if (agent === undefined) throw loadFailure(problems);
  return agent;
}

/** Compiles a spec, collecting the problems of every node instead of stopping at the first. */
export function inspectCompile(spec: AgentSpec, options: CompileOptions = {}): InspectedAgent {
  const registry = options.registry ?? createRegistry();
  const schemaRegistry = { ...(options.schemas ?? {}), ...spec.schemas };
  const scripts = options.scripts ?? {};
  const problems: LoadProblem[] = [];
  const attempt = <T>(location: ErrorLocation, compile: () => T): T | undefined => {
    try {
      return withLocation(compile, location);
    } catch (error) {
      problems.push(problemOf(toAgentError(error, 'INVALID_AGENT'), spec.file));
      return undefined;
    }
  };
  const at = (path: Path, node?: string): ErrorLocation => ({
    file: spec.file,
    ...(node !== undefined ? { node } : {}),
    ...spec.positionOf(path),
  });
  const warnings: string[] = [...(spec.warnings ?? [])];
  const context: CompileContext = {
    spec,
    registry,
    schemas: schemaRegistry,
    scripts,
    problems,
    warnings,
    attempt,
    at,
    hostProviders: options.hostProviders ?? [],
  };

  const nodes = new Map<string, CompiledNode>();
  const edgesFrom = new Map<string, AgentSpec['edges']>();
  for (const edge of spec.edges) edgesFrom.set(edge.from, [...(edgesFrom.get(edge.from) ?? []), edge]);

  spec.nodes.forEach((node, index) => {
    const compiler = createActionCompiler(spec, node, registry, schemaRegistry, node.path, scripts);
    const body = compileBody(node.body, compiler, context, node, node.path, node.name);
    const route = attempt(at(node.path, node.name), () => compileRoute(spec, node, index, edgesFrom));
    if (body === undefined || route === undefined) return;
    nodes.set(node.name, {
      name: node.name,
      spec: node,
      body,
      route,
      interruptBefore: node.interrupt === 'before' || spec.interruptBefore.includes(node.name),
      interruptAfter: node.interrupt === 'after' || spec.interruptAfter.includes(node.name),
    });
  });

  const inputSchema =
    spec.inputSchema !== undefined
      ? attempt(at(['input_schema']), () =>
          compileSchema(spec.inputSchema, { where: { field: 'input_schema' }, registry: schemaRegistry }),
        )
      : undefined;
  const entry = edgesFrom.get(START)?.[0]?.to[0] ?? spec.nodes[0]!.name;
  const { scripted, ...llmSettings } = spec.settings.llm ?? {};
  const settingsLlm = attempt(at(['settings', 'llm']), () => compileValue(llmSettings, { field: 'settings.llm' }));
  // Each sandbox checks its own settings (`settings.lua`); a language not loaded is not checked.
  for (const [language, sandbox] of Object.entries(scripts))
    attempt(at(['settings', language]), () => sandbox?.budgetFromSettings(spec.settings, { file: spec.file }));
  if (problems.length > 0 || settingsLlm === undefined) return { problems };
  const agent: CompiledAgent = {
    name: spec.name,
    description: spec.description,
    spec,
    nodes,
    entry,
    registry,
    scripts,
    inputSchema,
    settingsLlm:
      scripted === undefined
        ? settingsLlm
        : { ...settingsLlm, render: (scope) => ({ ...(settingsLlm.render(scope) as object), scripted }) },
    warnings,
  };
  return { agent, problems };
}

interface CompileContext {
  spec: AgentSpec;
  hostProviders: readonly string[];
  registry: ActionRegistry;
  schemas: Record<string, Record<string, unknown>>;
  scripts: ScriptSandboxes;
  problems: LoadProblem[];
  /** Ignored keys found in `with:` (TEA keys with no effect), besides the spec's own. */
  warnings: string[];
  /** Runs one compile step; a failure is recorded (with `location` filled in) and gives undefined. */
  attempt<T>(location: ErrorLocation, compile: () => T): T | undefined;
  at(path: Path, node?: string): ErrorLocation;
}

function compileBody(
  body: NodeBody,
  compiler: ActionCompiler,
  context: CompileContext,
  node: NodeSpec,
  path: Path,
  label: string,
): CompiledBody | undefined {
  const { spec, attempt, at } = context;
  switch (body.kind) {
    case 'action': {
      const action = attempt(at(path.concat('uses'), node.name), () => compiler.action(body.action, 'uses'));
      const output =
        typeof body.output === 'object'
          ? attempt(at(path.concat('output'), node.name), () => compiler.template(body.output, 'output'))
          : body.output;
      if (action === undefined) return undefined;
      if (!checkParams(action, body.with, path.concat('with'), node.name, context)) return undefined;
      const params = attempt(at(path.concat('with'), node.name), () =>
        action.prepare ? action.prepare(body.with, compiler) : compiler.template(body.with, 'with'),
      );
      if (params === undefined || (typeof body.output === 'object' && output === undefined)) return undefined;
      return {
        kind: 'action',
        action,
        prepared: action.prepare !== undefined,
        params,
        label,
        ...(output !== undefined ? { output } : {}),
      };
    }
    // Prolog compiles like Lua: the compiled body runs any CompiledScript (its kind is named after the first language).
    case 'python':
    case 'prolog':
    case 'lua': {
      if (body.kind === 'python' && context.scripts.python === undefined) {
        attempt(at(path.concat('language'), node.name), () => {
          throw new AgentError(
            'UNSUPPORTED_LANGUAGE',
            foreignLanguageMessage('python', 'this `run:` (language: python)'),
          );
        });
        return undefined;
      }
      const lua = attempt(at(path.concat('run'), node.name), () => {
        const where = { node: node.name, field: 'run', file: spec.file, line: body.lineOffset };
        const sandbox = sandboxFor(context.scripts, body.kind, where);
        try {
          return sandbox.compile(body.code, where);
        } catch (error) {
          const language =
            body.kind === 'lua' && AgentError.isInstance(error) && error.code === sandbox.errorCodes.syntax
              ? foreignLanguageOf(body.code)
              : undefined;
          // TEA auto-detects Prolog in a `run:` with no language, and runs the rest as Python: so does a host that has them.
          if (language === 'prolog' && context.scripts.prolog !== undefined)
            return context.scripts.prolog.compile(body.code, where);
          if (language === 'python' && context.scripts.python !== undefined)
            return context.scripts.python.compile(body.code, where);
          if (language !== undefined && AgentError.isInstance(error)) {
            throw new AgentError('UNSUPPORTED_LANGUAGE', foreignLanguageMessage(language, 'this `run:`'), {
              node: node.name,
              details: { lua_error: error.message },
            });
          }
          throw error;
        }
      });
      if (lua === undefined) return undefined;
      const warnings = context.scripts[lua.language]?.warningsOf?.(body.code) ?? [];
      if (warnings.length > 0) {
        const line = context.spec.contentLineOf(path.concat('run'));
        for (const warning of warnings)
          context.warnings.push(`node '${node.name}': ${warning}${line !== undefined ? ` (line ${line})` : ''}`);
      }
      // TEA renders the text of a Python block as a template (with the state) before running it.
      if (lua.language === 'python' && /\{\{|\{%/.test(body.code)) {
        const codeTemplate = attempt(at(path.concat('run'), node.name), () => compiler.template(body.code, 'run'));
        return codeTemplate === undefined ? undefined : { kind: 'lua', lua, label, codeTemplate };
      }
      return { kind: 'lua', lua, label };
    }
    case 'steps': {
      const steps = body.steps.map((step) => {
        const stepCompiler = createActionCompiler(
          spec,
          node,
          context.registry,
          context.schemas,
          step.path,
          context.scripts,
        );
        return compileBody(step.body, stepCompiler, context, node, step.path, `${label}/${step.name}`);
      });
      return steps.every(isCompiled) ? { kind: 'steps', label, steps } : undefined;
    }
    case 'expression': {
      const value = attempt(at(path.concat('run', 'value'), node.name), () => compileExpression(body.value, node.name));
      return value === undefined ? undefined : { kind: 'expression', value, outputKey: body.outputKey, label };
    }
    case 'while_loop': {
      const condition = attempt(at(path.concat('condition'), node.name), () =>
        compileCondition(body.condition, { node: node.name, field: 'condition' }),
      );
      const steps = body.body.map((step) =>
        compileBody(
          step.body,
          createActionCompiler(spec, node, context.registry, context.schemas, step.path),
          context,
          node,
          step.path,
          `${label}/${step.name}`,
        ),
      );
      if (condition === undefined || !steps.every(isCompiled)) return undefined;
      return { kind: 'while_loop', condition, maxIterations: body.maxIterations, body: steps, label };
    }
    case 'dynamic_parallel': {
      const items = attempt(at(path.concat('items'), node.name), () =>
        compileValue(body.items, { node: node.name, field: 'items' }),
      );
      const branchPath = path.concat(body.branchField);
      const branch = compileBody(
        body.branch,
        createActionCompiler(spec, node, context.registry, context.schemas, branchPath),
        context,
        node,
        branchPath,
        label,
      );
      if (items === undefined || branch === undefined) return undefined;
      return {
        kind: 'dynamic_parallel',
        items,
        itemVar: body.itemVar,
        indexVar: body.indexVar,
        branch,
        maxConcurrency: body.maxConcurrency,
        failFast: body.failFast,
        output: body.output,
        fanIn: body.fanIn,
        label,
      };
    }
    case 'pass':
      return { kind: 'pass', label };
  }
}

/** TEA's `run: {type: expression, value}`: the value is an expression (`{{ }}` optional); a literal stays itself. */
function compileExpression(value: string | boolean | number, node: string) {
  const text = typeof value === 'string' && !/\{\{|\{%/.test(value) ? `{{ ${value} }}` : value;
  return compileValue(text, { node, field: 'run.value' });
}

/**
 * Checks `with:` against the action's parameter schema: unknown keys (with the closest known one),
 * unknown literal providers, literal numbers past a ceiling. Records each; false when any.
 */
function checkParams(
  action: ActionDefinition,
  params: Record<string, unknown>,
  path: Path,
  node: string,
  context: CompileContext,
): boolean {
  // Reading the file reported these already; `prepare` would only misread them.
  if (findNonFinite(params).length > 0) return false;
  if (action.parameters === undefined) return true;
  const issues = checkClosedShape(params, action.parameters, path, {
    root: action.parameters,
    code: 'INVALID_PARAMS',
    checkBounds: true,
    hostProviders: context.hostProviders,
    paramsOf: (name) => context.registry.get(name)?.parameters,
    locationOf: (at) => (at.length === path.length ? `action:${action.name}` : undefined),
    describe: (at) =>
      at.length === path.length
        ? `the parameters of ${action.name}`
        : `\`${dotted(at.slice(path.length))}\` of ${action.name}`,
  });
  const { spec } = context;
  let failed = false;
  for (const issue of issues) {
    if (issue.warning === true) {
      context.warnings.push(`node '${node}' ${dotted(issue.path.slice(path.length))}: ${issue.message}`);
      continue;
    }
    failed = true;
    const position = issue.atKey ? (spec.keyPositionOf ?? spec.positionOf)(issue.path) : spec.positionOf(issue.path);
    context.problems.push({
      code: issue.code,
      message: issue.message,
      file: spec.file,
      ...position,
      node,
      field: dotted(issue.path.slice(path.length)),
    });
  }
  return !failed;
}

interface InternalCompiler extends ActionCompiler {
  registry: ActionRegistry;
  schemas: Record<string, Record<string, unknown>>;
}

/** The compiler handed to actions' `prepare`: compiles parts of the params with positions. */
export function createActionCompiler(
  spec: AgentSpec,
  node: NodeSpec | { name: string },
  registry: ActionRegistry,
  schemas: Record<string, Record<string, unknown>>,
  basePath: Array<string | number>,
  scripts: ScriptSandboxes = {},
): InternalCompiler {
  const fieldPath = (field: string) =>
    basePath.concat(
      field === 'uses'
        ? ['uses']
        : [
            'with',
            ...field
              .split(/[.[\]]/)
              .filter(Boolean)
              .map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
          ],
    );
  const locate = (field?: string) => ({
    file: spec.file,
    node: node.name,
    ...(field !== undefined ? { field } : {}),
    ...spec.positionOf(field !== undefined ? fieldPath(field) : basePath),
  });
  const compiler: InternalCompiler = {
    node: node.name,
    registry,
    schemas,
    agentSettings: spec.settings,
    template(value, field) {
      return rethrowAt(() => compileValue(value, { node: node.name, field }), locate(field));
    },
    lua(code, field) {
      return compiler.script('lua', code, field);
    },
    script(language, code, field) {
      if (typeof code !== 'string') throw compiler.error(`\`${field}\` must be ${language} code as a string`, field);
      const line = contentLine(spec, fieldPath(field));
      const where = { node: node.name, field, file: spec.file, ...(line !== undefined ? { line } : {}) };
      return rethrowAt(() => sandboxFor(scripts, language, where).compile(code, where), locate(field));
    },
    schema(schema, field) {
      return rethrowAt(
        () => compileSchema(schema, { where: { node: node.name, field }, registry: schemas }),
        locate(field),
        'SCHEMA_INVALID',
      );
    },
    action(name, field) {
      return rethrowAt(() => registry.resolve(name), locate(field));
    },
    error(message, field, code: ErrorCode = 'INVALID_PARAMS') {
      return new AgentError(code, message, locate(field));
    },
  };
  return compiler;
}

/** A body that compiled (a failed one was recorded as a problem and is undefined). */
function isCompiled(body: CompiledBody | undefined): body is CompiledBody {
  return body !== undefined;
}

/** The line offset of a nested Lua chunk: its first line in the file, minus one. */
function contentLine(spec: AgentSpec, path: Array<string | number>): number | undefined {
  const line = spec.contentLineOf(path);
  return line === undefined ? undefined : line - 1;
}

/** Adds file/line/column to an AgentError thrown without them. */
function rethrowAt<T>(compile: () => T, location: ErrorLocation, fallback: ErrorCode = 'INVALID_PARAMS'): T {
  try {
    return compile();
  } catch (error) {
    const agentError = toAgentError(error, fallback);
    if (agentError.location.line !== undefined) throw agentError;
    throw new AgentError(agentError.code, agentError.message, {
      ...location,
      ...agentError.location,
      line: location.line,
      column: location.column,
      file: location.file,
      details: agentError.details,
      cause: agentError,
    });
  }
}

/** Runs a compile step with a default location for errors thrown without a position. */
function withLocation<T>(compile: () => T, location: ErrorLocation): T {
  return rethrowAt(compile, location);
}

function withPosition<T>(spec: AgentSpec, path: Path, node: string | undefined, compile: () => T): T {
  return rethrowAt(compile, { file: spec.file, ...(node !== undefined ? { node } : {}), ...spec.positionOf(path) });
}

function compileRoute(
  spec: AgentSpec,
  node: NodeSpec,
  index: number,
  edgesFrom: Map<string, AgentSpec['edges']>,
): CompiledRoute {
  const condition = (
    value: string | boolean | undefined,
    field: string,
  ): { condition?: CompiledCondition; constant?: boolean } => {
    if (value === undefined) return {};
    if (typeof value === 'boolean') return { constant: value };
    return {
      condition: withPosition(
        spec,
        node.path.concat(field.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part))),
        node.name,
        () => compileCondition(value, { node: node.name, field }),
      ),
    };
  };
  if (typeof node.goto === 'string') return { kind: 'goto', target: node.goto };
  if (Array.isArray(node.goto)) {
    return {
      kind: 'rules',
      rules: node.goto.map((rule, ruleIndex) => ({ ...condition(rule.if, `goto.${ruleIndex}.if`), to: rule.to })),
    };
  }
  const edges = edgesFrom.get(node.name);
  if (edges !== undefined && edges.length > 0) {
    const parallel = edges.find((edge) => edge.parallel);
    if (parallel !== undefined) {
      const branches = edges.filter((edge) => edge.parallel).flatMap((edge) => edge.to);
      return { kind: 'parallel', branches, fanIn: parallel.fanIn!, failFast: parallel.failFast };
    }
    return {
      kind: 'edges',
      edges: edges.map((edge) => {
        const field = `when`;
        if (edge.condition !== undefined) {
          const expect = edge.when === undefined ? true : edge.when === true;
          if (typeof edge.condition === 'boolean') return { constant: edge.condition === expect, to: edge.to[0]! };
          const source = edge.condition;
          const conditionPath = edgeHasMapping(spec, edge.path)
            ? edge.path.concat('condition', 'value')
            : edge.path.concat('condition');
          return {
            condition: withPosition(spec, conditionPath, node.name, () =>
              compileCondition(source, { node: node.name, field: 'condition' }),
            ),
            expect,
            to: edge.to[0]!,
          };
        }
        if (typeof edge.when === 'string') {
          return {
            condition: withPosition(spec, edge.path.concat('when'), node.name, () =>
              compileCondition(edge.when as string, { node: node.name, field }),
            ),
            to: edge.to[0]!,
          };
        }
        return { ...(typeof edge.when === 'boolean' ? { constant: edge.when } : {}), to: edge.to[0]! };
      }),
    };
  }
  return { kind: 'next', target: spec.nodes[index + 1]?.name ?? END };
}

/** True when the edge at `path` wrote `condition:` as a mapping (its position is the value's). */
function edgeHasMapping(spec: AgentSpec, path: Path): boolean {
  return spec.positionOf(path.concat('condition', 'value')) !== undefined;
}

export type { ActionDefinition };
