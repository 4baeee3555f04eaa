/**
 * The library's interpreter with tea-edge's rules on top. Every node goes through `evaluate`, so
 * one override adds: the render budget (steps, loop iterations, output, call depth, string and
 * list sizes), own-data member access, tea-edge's filters and tests, string repetition and `%`
 * formatting, and its own `for` loop (template-loop.ts).
 * Everything else is the library's own evaluation. The interpreter keeps no state between renders:
 * create one per render.
 */
import { Interpreter, type Environment } from '@huggingface/jinja';
import { AgentError } from '../errors/agent-error.js';
import {
  type RuntimeValue,
  type TemplateNode,
  isArray,
  isFunction,
  isInteger,
  isMapping,
  isNumber,
  isString,
  makeArray,
  makeBoolean,
  makeFloat,
  makeFunction,
  makeInteger,
  makeString,
  toText,
} from './jinja-runtime.js';
import { readMember } from './read-member.js';
import { pythonReplace } from './text-helpers.js';
import type { RenderBudget } from './render-budget.js';
import { type FilterContext, TEMPLATE_FILTERS, formatValues } from './template-filters.js';
import { TEMPLATE_TESTS } from './template-tests.js';
import type { PreparedProgram } from './prepare-program.js';
import { BREAK_SIGNAL, CONTINUE_SIGNAL, type LoopHost, type LoopNode, runLoop } from './template-loop.js';

interface NamedNode {
  type: string;
  value: string;
}
interface CallNode {
  type: string;
  callee: TemplateNode;
  args: TemplateNode[];
}
interface MemberNode {
  object: TemplateNode;
  property: TemplateNode & { value?: unknown };
  computed: boolean;
}

/** The library's private helpers reused here (present in the pinned 0.5.x; covered by tests). */
interface InterpreterInternals {
  evaluateArguments(args: TemplateNode[], environment: Environment): [RuntimeValue[], Map<string, RuntimeValue>];
  evaluateBlock(statements: TemplateNode[], environment: Environment): RuntimeValue;
  applyFilter(operand: RuntimeValue, filter: NamedNode | CallNode, environment: Environment): RuntimeValue;
}

export class TemplateInterpreter extends Interpreter {
  readonly #budget: RenderBudget;
  readonly #program: PreparedProgram;
  #host: LoopHost | undefined;
  /** The innermost printed expression, `if` test or loop source: named in render errors. */
  currentExpression: TemplateNode | undefined;

  constructor(environment: Environment, budget: RenderBudget, program: PreparedProgram) {
    super(environment);
    this.#budget = budget;
    this.#program = program;
  }

  override evaluate(statement: TemplateNode | undefined, environment: Environment): RuntimeValue {
    if (statement === undefined) return super.evaluate(statement, environment);
    this.#budget.step();
    if (this.#program.loopSources.has(statement)) {
      // A missing or null source loops zero times; a string loops over its characters (as in Jinja).
      const source = this.#evaluateNode(statement, environment);
      if (source.type === 'UndefinedValue' || source.type === 'NullValue') return makeArray([]);
      const items = isString(source) ? makeArray(Array.from(source.value, (character) => makeString(character))) : source;
      // The library prepares every item before the first iteration, so the size is checked first.
      if (isArray(items)) this.#budget.loopSource(items.value.length);
      else if (isMapping(items)) this.#budget.loopSource(items.value.size);
      return items;
    }
    if (!this.#program.outputNodes.has(statement)) return this.#evaluateNode(statement, environment);
    this.currentExpression = statement;
    const value = this.#evaluateNode(statement, environment);
    if (isFunction(value)) throw new AgentError('TEMPLATE_ERROR', 'cannot print a function; call it or drop it');
    if (isString(value)) this.#budget.output(value.value.length);
    else if (value.type !== 'NullValue' && value.type !== 'UndefinedValue') this.#budget.output(value.toString().length);
    return value;
  }

  #evaluateNode(statement: TemplateNode, environment: Environment): RuntimeValue {
    switch (statement.type) {
      case 'StringLiteral':
      case 'IntegerLiteral':
      case 'FloatLiteral':
        return this.#program.literals.get(statement) ?? super.evaluate(statement, environment);
      case 'Break':
        throw BREAK_SIGNAL;
      case 'Continue':
        throw CONTINUE_SIGNAL;
      case 'If':
        this.currentExpression = (statement as unknown as { test: TemplateNode }).test;
        return super.evaluate(statement, environment);
      case 'For':
        this.currentExpression = (statement as unknown as LoopNode).iterable;
        return runLoop(this.#loopHost, statement as unknown as LoopNode, environment);
      case 'MemberExpression':
        return this.#member(statement as unknown as MemberNode, statement, environment);
      case 'FilterExpression': {
        const node = statement as unknown as { operand: TemplateNode; filter: NamedNode | CallNode };
        if (!TEMPLATE_FILTERS.has(filterName(node.filter))) return this.#checked(super.evaluate(statement, environment));
        return this.#filter(node.filter, this.evaluate(node.operand, environment), environment);
      }
      case 'FilterStatement': {
        const node = statement as unknown as { body: TemplateNode[]; filter: NamedNode | CallNode };
        if (!TEMPLATE_FILTERS.has(filterName(node.filter))) return this.#checked(super.evaluate(statement, environment));
        return this.#filter(node.filter, this.#internals.evaluateBlock(node.body, environment), environment);
      }
      case 'TestExpression': {
        const node = statement as unknown as { operand: TemplateNode; negate: boolean; test: NamedNode };
        const test = TEMPLATE_TESTS.get(node.test.value);
        if (test === undefined) return super.evaluate(statement, environment);
        return makeBoolean(test(this.evaluate(node.operand, environment)) !== node.negate);
      }
      case 'BinaryExpression': {
        const node = statement as unknown as { operator: { value: string }; left: TemplateNode; right: TemplateNode };
        if (node.operator.value === '*') return this.#multiply(this.evaluate(node.left, environment), this.evaluate(node.right, environment));
        if (node.operator.value === '%') {
          const left = this.evaluate(node.left, environment);
          const right = this.evaluate(node.right, environment);
          if (!isString(left)) return this.#checked(this.#remainder(left, right));
          // Python's `'%s and %s' % (a, b)`; a single value needs no tuple.
          const values = isArray(right) ? right.value : [right];
          return formatValues(left, values, this.#filterContext(environment));
        }
        if (node.operator.value === '~') {
          // Jinja's `~` prints both sides, so a missing or null side adds nothing (the library refuses them).
          const text = toText(this.evaluate(node.left, environment)) + toText(this.evaluate(node.right, environment));
          this.#budget.size(text.length);
          return makeString(text);
        }
        return this.#checked(super.evaluate(statement, environment));
      }
      case 'CallExpression':
      case 'CallStatement':
        this.#budget.enterCall();
        try {
          return this.#checked(super.evaluate(statement, environment));
        } finally {
          this.#budget.leaveCall();
        }
      default:
        return super.evaluate(statement, environment);
    }
  }

  get #loopHost(): LoopHost {
    return (this.#host ??= {
      budget: this.#budget,
      evaluate: (node, environment) => this.evaluate(node, environment),
      evaluateBlock: (nodes, environment) => this.#internals.evaluateBlock(nodes, environment),
    });
  }

  get #internals(): InterpreterInternals {
    return this as unknown as InterpreterInternals;
  }

  #member(node: MemberNode, statement: TemplateNode, environment: Environment): RuntimeValue {
    // Slices are the library's (bounded by the sliced value's size).
    if (node.computed && node.property.type === 'SliceExpression') return super.evaluate(statement, environment);
    const target = this.evaluate(node.object, environment);
    let key: RuntimeValue;
    if (node.computed) key = this.evaluate(node.property, environment);
    else if (node.property.type === 'IntegerLiteral') key = makeInteger(node.property.value as number);
    else key = makeString(node.property.value as string);
    const asCallee = this.#program.callees.has(statement);
    if (asCallee && isString(target) && isString(key) && key.value === 'replace') return this.#stringReplace(target.value);
    if (asCallee && isString(target) && isString(key) && key.value === 'join') return this.#stringJoin(target.value);
    return readMember(target, key, asCallee);
  }

  /** Python's `separator.join(items)`, which the library's strings lack. */
  #stringJoin(separator: string): RuntimeValue {
    return makeFunction(([items]) => {
      if (items === undefined || !isArray(items)) throw new AgentError('TEMPLATE_ERROR', 'join() takes a list');
      const texts = items.value.map((item) => toText(item));
      this.#budget.size(texts.reduce((total, text) => total + text.length + separator.length, 0));
      return makeString(texts.join(separator));
    });
  }

  /** `text.replace(old, new, count)`, with the result size checked before it is built. */
  #stringReplace(text: string): RuntimeValue {
    return makeFunction((args) => {
      const keywords = args.at(-1)?.type === 'KeywordArgumentsValue' ? (args.pop()!.value as Map<string, RuntimeValue>) : new Map<string, RuntimeValue>();
      const [old, replacement] = args;
      const count = args[2] ?? keywords.get('count');
      if (old === undefined || replacement === undefined || !isString(old) || !isString(replacement)) {
        throw new AgentError('TEMPLATE_ERROR', 'replace() takes two strings');
      }
      const limit = count !== undefined && isNumber(count) ? count.value : -1;
      return makeString(pythonReplace(text, old.value, replacement.value, limit, this.#budget.limits.maxOutputChars));
    });
  }

  #filter(filter: NamedNode | CallNode, operand: RuntimeValue, environment: Environment): RuntimeValue {
    const [args, keywords] =
      filter.type === 'CallExpression' ? this.#internals.evaluateArguments((filter as CallNode).args, environment) : [[], new Map()];
    const name = filterName(filter);
    return this.#checked(TEMPLATE_FILTERS.get(name)!(operand, args, keywords, this.#filterContext(environment)));
  }

  #filterContext(environment: Environment): FilterContext {
    return {
      budget: this.#budget,
      applyFilter: (name, operand, args) => {
        const own = TEMPLATE_FILTERS.get(name);
        if (own !== undefined) return own(operand, args, new Map(), this.#filterContext(environment));
        if (args.length > 0) throw new AgentError('TEMPLATE_ERROR', `map: filter '${name}' takes no arguments here`);
        return this.#internals.applyFilter(operand, { type: 'Identifier', value: name }, environment);
      },
    };
  }

  /** `*`: numbers multiply; a string or list times an integer repeats, within the size limit. */
  #multiply(left: RuntimeValue, right: RuntimeValue): RuntimeValue {
    if (isNumber(left) && isNumber(right)) {
      const product = left.value * right.value;
      return isInteger(left) && isInteger(right) ? makeInteger(product) : makeFloat(product);
    }
    const [sequence, times] = isInteger(right) ? [left, right.value] : isInteger(left) ? [right, left.value] : [left, NaN];
    if (Number.isInteger(times) && (isString(sequence) || isArray(sequence))) {
      const count = Math.max(times, 0);
      this.#budget.size(sequence.value.length * count);
      if (isString(sequence)) return makeString(sequence.value.repeat(count));
      const items: RuntimeValue[] = [];
      for (let index = 0; index < count; index++) items.push(...(sequence.value as RuntimeValue[]));
      return makeArray(items);
    }
    throw new AgentError('TEMPLATE_ERROR', `cannot multiply ${left.type} by ${right.type}`);
  }

  /** `%` on numbers as in Python (and so Jinja): the result has the sign of the divisor. */
  #remainder(left: RuntimeValue, right: RuntimeValue): RuntimeValue {
    if (!isNumber(left) || !isNumber(right)) throw new AgentError('TEMPLATE_ERROR', `cannot apply % to ${left.type} and ${right.type}`);
    if (right.value === 0) throw new AgentError('TEMPLATE_ERROR', 'modulo by zero');
    const remainder = left.value - right.value * Math.floor(left.value / right.value);
    return isInteger(left) && isInteger(right) ? makeInteger(remainder) : makeFloat(remainder);
  }

  /** Strings and lists built by an operation stay within the size limit. */
  #checked(value: RuntimeValue): RuntimeValue {
    if (isString(value) || isArray(value)) this.#budget.size(value.value.length);
    return value;
  }
}

function filterName(filter: NamedNode | CallNode): string {
  if (filter.type === 'Identifier') return (filter as NamedNode).value;
  const callee = (filter as CallNode).callee as unknown as NamedNode;
  return callee.type === 'Identifier' ? callee.value : '';
}
