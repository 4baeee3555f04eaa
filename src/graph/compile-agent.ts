/**
 * Compiles an AgentSpec: resolves every action (UNKNOWN_ACTION with suggestions), parses every
 * template once, syntax-checks every Lua chunk (LUA_SYNTAX with line), compiles schemas, lets
 * actions validate their parameters (`prepare`), and builds each node's route.
 */
import type { ActionCompiler, ActionDefinition } from '../actions/types.js';
import { createActionRegistry, type ActionRegistry } from '../actions/registry.js';
import { AgentError, toAgentError, type ErrorCode } from '../errors/agent-error.js';
import { compileLua } from '../lua/compile-lua.js';
import { compileSchema } from '../schema/compile-schema.js';
import type { AgentSpec, NodeBody, NodeSpec } from '../spec/agent-spec.js';
import { compileCondition, compileValue } from '../templates/index.js';
import type { CompiledAgent, CompiledBody, CompiledCondition, CompiledNode, CompiledRoute } from './compiled-agent.js';
import { looksLikePython } from './python-detector.js';

export interface CompileOptions {
  registry?: ActionRegistry;
  /** Schemas the host registers, referenced by `$ref: <name>`, besides the agent's `schemas:`. */
  schemas?: Record<string, Record<string, unknown>>;
}

const END = '__end__';

export function compileAgent(spec: AgentSpec, options: CompileOptions = {}): CompiledAgent {
  const registry = options.registry ?? createActionRegistry();
  const schemaRegistry = { ...(options.schemas ?? {}), ...spec.schemas };
  const nodes = new Map<string, CompiledNode>();
  const edgesFrom = new Map<string, AgentSpec['edges']>();
  for (const edge of spec.edges) edgesFrom.set(edge.from, [...(edgesFrom.get(edge.from) ?? []), edge]);

  spec.nodes.forEach((node, index) => {
    const compiler = createActionCompiler(spec, node, registry, schemaRegistry, node.path);
    const body = compileBody(node.body, compiler, spec, node, node.path, node.name);
    nodes.set(node.name, {
      name: node.name,
      spec: node,
      body,
      route: compileRoute(spec, node, index, edgesFrom),
      interruptBefore: node.interrupt === 'before' || spec.interruptBefore.includes(node.name),
      interruptAfter: node.interrupt === 'after' || spec.interruptAfter.includes(node.name),
    });
  });

  const inputSchema =
    spec.inputSchema !== undefined
      ? withPosition(spec, ['input_schema'], undefined, () => compileSchema(spec.inputSchema, { where: { field: 'input_schema' }, registry: schemaRegistry }))
      : undefined;
  const entry = edgesFrom.get('__start__')?.[0]?.to[0] ?? spec.nodes[0]!.name;
  const { scripted, ...llmSettings } = (spec.settings.llm ?? {}) as Record<string, unknown>;
  const settingsLlm = withPosition(spec, ['settings', 'llm'], undefined, () => compileValue(llmSettings, { field: 'settings.llm' }));
  return {
    name: spec.name,
    description: spec.description,
    spec,
    nodes,
    entry,
    registry,
    inputSchema,
    settingsLlm: scripted === undefined ? settingsLlm : { ...settingsLlm, render: (scope) => ({ ...(settingsLlm.render(scope) as object), scripted }) },
    warnings: spec.unknownKeys.map((key) => `unknown top-level key '${key}' is ignored`),
  };
}

function compileBody(body: NodeBody, compiler: ActionCompiler, spec: AgentSpec, node: NodeSpec, path: Array<string | number>, label: string): CompiledBody {
  switch (body.kind) {
    case 'action': {
      const action = withPosition(spec, path.concat(body.action === undefined ? [] : ['uses']), node.name, () => compiler.action(body.action, 'uses'));
      const output = typeof body.output === 'object' ? withPosition(spec, path.concat('output'), node.name, () => compiler.template(body.output, 'output')) : body.output;
      const params = withPosition(spec, path.concat('with'), node.name, () =>
        action.prepare ? action.prepare(body.with, compiler) : compiler.template(body.with, 'with'),
      );
      return { kind: 'action', action, prepared: action.prepare !== undefined, params, label, ...(output !== undefined ? { output } : {}) };
    }
    case 'lua': {
      const lua = withPosition(spec, path.concat('run'), node.name, () => {
        try {
          return compileLua(body.code, { node: node.name, field: 'run', file: spec.file, line: body.lineOffset });
        } catch (error) {
          if (AgentError.isInstance(error) && error.code === 'LUA_SYNTAX' && looksLikePython(body.code)) {
            throw new AgentError('UNSUPPORTED_LANGUAGE', 'this run: code looks like Python; tea-edge runs inline code in Lua (rewrite it in Lua)', {
              node: node.name,
              details: { lua_error: error.message },
            });
          }
          throw error;
        }
      });
      return { kind: 'lua', lua, label };
    }
    case 'steps':
      return {
        kind: 'steps',
        label,
        steps: body.steps.map((step) => {
          const { registry, schemas } = compiler as InternalCompiler;
          const stepCompiler = createActionCompiler(spec, node, registry, schemas, step.path);
          return compileBody(step.body, stepCompiler, spec, node, step.path, `${label}/${step.name}`);
        }),
      };
    case 'pass':
      return { kind: 'pass', label };
  }
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
): InternalCompiler {
  const fieldPath = (field: string) => basePath.concat(field === 'uses' ? ['uses'] : ['with', ...field.split(/[.[\]]/).filter(Boolean).map((part) => (/^\d+$/.test(part) ? Number(part) : part))]);
  const locate = (field?: string) => ({ file: spec.file, node: node.name, ...(field !== undefined ? { field } : {}), ...spec.positionOf(field !== undefined ? fieldPath(field) : basePath) });
  const compiler: InternalCompiler = {
    node: node.name,
    registry,
    schemas,
    agentSettings: spec.settings,
    template(value, field) {
      return rethrowAt(() => compileValue(value, { node: node.name, field }), locate(field));
    },
    lua(code, field) {
      if (typeof code !== 'string') throw compiler.error(`\`${field}\` must be Lua code as a string`, field);
      const line = contentLine(spec, fieldPath(field));
      return rethrowAt(() => compileLua(code, { node: node.name, field, file: spec.file, ...(line !== undefined ? { line } : {}) }), locate(field));
    },
    schema(schema, field) {
      return rethrowAt(() => compileSchema(schema, { where: { node: node.name, field }, registry: schemas }), locate(field), 'SCHEMA_INVALID');
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

/** The line offset of a nested Lua chunk: its first line in the file, minus one. */
function contentLine(spec: AgentSpec, path: Array<string | number>): number | undefined {
  const line = spec.contentLineOf(path);
  return line === undefined ? undefined : line - 1;
}

/** Adds file/line/column to an AgentError thrown without them. */
function rethrowAt<T>(compile: () => T, location: Record<string, unknown>, fallback: ErrorCode = 'INVALID_PARAMS'): T {
  try {
    return compile();
  } catch (error) {
    const agentError = toAgentError(error, fallback);
    if (agentError.location.line !== undefined) throw agentError;
    const message = stripLocation(agentError.message);
    throw new AgentError(agentError.code, message, { ...location, ...agentError.location, line: location.line as number | undefined, column: location.column as number | undefined, file: location.file as string, details: agentError.details, cause: agentError });
  }
}

function withPosition<T>(spec: AgentSpec, path: Array<string | number>, node: string | undefined, compile: () => T): T {
  return rethrowAt(compile, { file: spec.file, ...(node !== undefined ? { node } : {}), ...spec.positionOf(path) });
}

function stripLocation(message: string): string {
  return message.replace(/^(?:[^:]+:\d+(?::\d+)?, )?(?:agent '[^']*', )?(?:node '[^']*'(?:, )?)?(?:field '[^']*')?: /, '');
}

function compileRoute(spec: AgentSpec, node: NodeSpec, index: number, edgesFrom: Map<string, AgentSpec['edges']>): CompiledRoute {
  const condition = (value: string | boolean | undefined, field: string): { condition?: CompiledCondition; constant?: boolean } => {
    if (value === undefined) return {};
    if (typeof value === 'boolean') return { constant: value };
    return { condition: withPosition(spec, node.path.concat(field.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part))), node.name, () => compileCondition(value, { node: node.name, field })) };
  };
  if (typeof node.goto === 'string') return { kind: 'goto', target: node.goto };
  if (Array.isArray(node.goto)) {
    return { kind: 'rules', rules: node.goto.map((rule, ruleIndex) => ({ ...condition(rule.if, `goto.${ruleIndex}.if`), to: rule.to })) };
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
        if (typeof edge.when === 'string') {
          return { condition: withPosition(spec, edge.path.concat('when'), node.name, () => compileCondition(edge.when as string, { node: node.name, field })), to: edge.to[0]! };
        }
        return { ...(typeof edge.when === 'boolean' ? { constant: edge.when } : {}), to: edge.to[0]! };
      }),
    };
  }
  return { kind: 'next', target: spec.nodes[index + 1]?.name ?? END };
}

export type { ActionDefinition };
