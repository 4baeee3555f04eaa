/**
 * `compileTemplate`: one Jinja template string, parsed once at agent load, rendered many times by
 * walking the kept syntax tree (no code generation). A string that is exactly one `{{ expr }}`
 * renders to the expression's native value; anything else renders to a string.
 */
import { Environment } from '@huggingface/jinja';
import { AgentError } from '../core/agent-error.js';
import {
  type RuntimeValue,
  LazyRecordMap,
  createEnvironment,
  isArray,
  isInteger,
  isMapping,
  makeArray,
  makeFunction,
  makeInteger,
  makeString,
  toNativeValue,
} from './jinja-runtime.js';
import { type PreparedProgram, describeNode, prepareProgram, snippet } from './prepare-program.js';
import { FALL_BACK, renderPathTemplate, toPathTemplate } from './path-template.js';
import { RenderBudget, resolveTemplateLimits } from './render-budget.js';
import { TemplateInterpreter } from './template-interpreter.js';
import { BREAK_SIGNAL, CONTINUE_SIGNAL } from './template-loop.js';
import { toText } from './text-writer.js';
import {
  type CompiledTemplate,
  type TemplateLimits,
  type TemplateLocation,
  type TemplateOptions,
  type TemplateScope,
  TEMPLATE_CLOCK,
} from './types.js';
import { pythonUtcIso } from './python-time.js';
import { messageOf } from '../util/message-of.js';

/**
 * Parses `source` once. Syntax errors, unknown filters and unknown tests throw `TEMPLATE_ERROR`
 * naming `where` and the expression.
 *
 * @example
 * const greeting = compileTemplate('Hello {{ state.name | default("you") }}!', { node: 'greet', field: 'with.prompt' });
 * greeting.render({ state: {} }); // 'Hello you!'
 * compileTemplate('{{ state.items }}', {}).render({ state: { items: [1, 2] } }); // [1, 2]
 */
export function compileTemplate(
  source: string,
  where: TemplateLocation = {},
  options: TemplateOptions = {},
): CompiledTemplate {
  if (typeof source !== 'string') {
    throw new AgentError('TEMPLATE_ERROR', `a template must be a string, got ${typeof source}`, { ...where });
  }
  const limits = resolveTemplateLimits(options.limits);
  let prepared: PreparedProgram;
  try {
    prepared = prepareProgram(source);
  } catch (error) {
    throw locate(error, where, source, undefined);
  }
  const globals = createGlobals();
  const pathTemplate = options.interpretOnly === true ? undefined : toPathTemplate(prepared);
  return {
    source,
    isLone: prepared.lone !== undefined,
    render(scope: TemplateScope): unknown {
      if (pathTemplate !== undefined) {
        const rendered = renderPathTemplate(pathTemplate, scope, limits);
        if (rendered !== FALL_BACK) return rendered;
      }
      return renderPrepared(prepared, globals, limits, scope, where, source);
    },
  };
}

function renderPrepared(
  prepared: PreparedProgram,
  globals: Environment,
  limits: TemplateLimits,
  scope: TemplateScope,
  where: TemplateLocation,
  source: string,
): unknown {
  const budget = new RenderBudget(limits);
  const environment = createEnvironment(globals, new RenderVariables(scope ?? {}, budget));
  const interpreter = new TemplateInterpreter(environment, budget, prepared);
  try {
    // A lone expression's value is copied out: every value copied is charged (shared lists too).
    if (prepared.lone !== undefined) return toNativeValue(interpreter.evaluate(prepared.lone, environment), budget);
    return toText(interpreter.run(prepared.program), budget);
  } catch (error) {
    const expression = interpreter.currentExpression ?? prepared.lone;
    throw locate(error, where, source, expression === undefined ? undefined : describeNode(expression));
  }
}

/** The variables of one render: the scope, read lazily, the render's budget for `range`, its clock for `now`. */
class RenderVariables extends LazyRecordMap {
  readonly budget: RenderBudget;
  readonly clock: () => number;

  constructor(scope: TemplateScope, budget: RenderBudget) {
    super(scope);
    this.budget = budget;
    this.clock = scope[TEMPLATE_CLOCK] ?? Date.now;
  }
}

/** The RenderVariables of the render that `environment` belongs to (the root of its scopes). */
function renderOf(environment: Environment): RenderVariables {
  for (let current: Environment | undefined = environment; current !== undefined; current = current.parent) {
    if (current.variables instanceof RenderVariables) return current.variables;
  }
  throw new AgentError('INTERNAL', 'a template function was called outside a render');
}

function budgetOf(environment: Environment): RenderBudget {
  return renderOf(environment).budget;
}

/** Globals shared by every render of one template (nothing in them can be changed by a template). */
function createGlobals(): Environment {
  const globals = new Environment();
  globals.set('true', true);
  globals.set('false', false);
  globals.set('none', null);
  globals.set('True', true);
  globals.set('False', false);
  globals.set('None', null);
  globals.variables.set('range', createRange());
  // TEA's `now()`: the current UTC time as Python's `datetime.utcnow().isoformat() + "Z"` prints it.
  globals.variables.set(
    'now',
    makeFunction((args, scope) => {
      if (args.length > 0) throw new AgentError('TEMPLATE_ERROR', 'now() takes no arguments');
      return makeString(pythonUtcIso(renderOf(scope).clock()));
    }),
  );
  globals.variables.set('namespace', chargedNamespace(globals.variables.get('namespace')!));
  globals.variables.set(
    'raise_exception',
    makeFunction((args, scope) => {
      const message = args[0] === undefined ? 'raised' : snippet(toText(args[0], budgetOf(scope)));
      throw new AgentError('TEMPLATE_ERROR', `raise_exception: ${message}`);
    }),
  );
  return globals;
}

/** The library's `namespace(...)`, with the list or object it copies from charged first. */
function chargedNamespace(namespace: RuntimeValue): RuntimeValue {
  const create = namespace.value as (args: RuntimeValue[], scope: Environment) => RuntimeValue;
  return makeFunction((args, scope) => {
    const budget = budgetOf(scope);
    for (const argument of args) {
      if (isArray(argument)) budget.work(argument.value.length);
      else if (isMapping(argument)) budget.work(argument.value.size);
    }
    return create(args, scope);
  });
}

/** Python's `range`, refusing before allocation anything past the render's iteration budget. */
function createRange(): RuntimeValue {
  return makeFunction((args, scope) => {
    const numbers = args.map((value) => {
      if (!isInteger(value)) throw new AgentError('TEMPLATE_ERROR', `range() takes integers, got ${value.type}`);
      return value.value;
    });
    if (numbers.length === 0 || numbers.length > 3)
      throw new AgentError('TEMPLATE_ERROR', 'range() takes 1 to 3 integers');
    const [start, stop, step] =
      numbers.length === 1 ? [0, numbers[0]!, 1] : [numbers[0]!, numbers[1]!, numbers[2] ?? 1];
    if (step === 0) throw new AgentError('TEMPLATE_ERROR', 'range() step must not be zero');
    const count = Math.max(0, Math.ceil((stop - start) / step));
    budgetOf(scope).rangeItems(count);
    const items: RuntimeValue[] = new Array(count);
    for (let index = 0; index < count; index++) items[index] = makeInteger(start + index * step);
    return makeArray(items);
  });
}

/** Turns anything thrown while compiling or rendering into an AgentError naming where and what. */
function locate(error: unknown, where: TemplateLocation, source: string, expression: string | undefined): AgentError {
  const shown = expression ?? snippet(source);
  if (AgentError.isInstance(error)) {
    // Syntax errors already name their expression.
    const named = typeof error.details.expression === 'string';
    const message = named ? error.message : `${error.message} in ${shown}`;
    return new AgentError(error.code, message, {
      ...where,
      details: { expression: shown, ...error.details },
      cause: error,
    });
  }
  const reason =
    error === BREAK_SIGNAL || error === CONTINUE_SIGNAL ? 'break or continue outside a loop' : messageOf(error);
  // The engine's own stack or string length running out is a size problem, not a bug in the text.
  const code = error instanceof RangeError ? 'TEMPLATE_LIMIT' : 'TEMPLATE_ERROR';
  return new AgentError(code, `${reason} in ${shown}`, {
    ...where,
    details: { expression: shown, reason },
    cause: error,
  });
}
