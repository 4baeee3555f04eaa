/**
 * The library's interpreter with tea-edge's rules on top. Every node goes through `evaluate`, so
 * one override adds: the render budget (steps, loop iterations, output, call depth, string and
 * list sizes), own-data member access, tea-edge's filters and tests, string repetition and `%`
 * formatting, and its own `for` loop (template-loop.ts).
 * Everything else is the library's own evaluation. The interpreter keeps no state between renders:
 * create one per render.
 */
import { Interpreter, type Environment } from '@huggingface/jinja';
import { AgentError } from '../core/agent-error.js';
import {
  type RuntimeValue,
  type TemplateNode,
  isArray,
  isFunction,
  isMapping,
  isNumber,
  isString,
  makeArray,
  makeBoolean,
  makeFunction,
  makeInteger,
  makeString,
} from './jinja-runtime.js';
import { readMember } from './read-member.js';
import { pythonReplace } from './text-helpers.js';
import type { RenderBudget } from './render-budget.js';
import { TEMPLATE_FILTERS, formatValues } from './template-filters.js';
import type { FilterContext } from './filter-types.js';
import { joinTexts } from './text-filters.js';
import { toText } from './text-writer.js';
import { chargeBuilt } from './built-values.js';
import { add, contains, multiply, remainder } from './template-operators.js';
import { TEMPLATE_TESTS } from './template-tests.js';
import { ARGUMENT_TESTS } from './argument-tests.js';
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
  evaluateSliceExpression(target: RuntimeValue, slice: TemplateNode, environment: Environment): RuntimeValue;
}

// The one place the library's private methods are reached: its prototype, seen with them.
const LIBRARY = Interpreter.prototype as unknown as InterpreterInternals;
const LIBRARY_APPLY_FILTER = LIBRARY.applyFilter;
const LIBRARY_EVALUATE_ARGUMENTS = LIBRARY.evaluateArguments;

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
    this.#internals.applyFilter = (operand, filter, scope) => this.#libraryFilter(operand, filter, scope);
    // Arguments spread from a list (`f(*items)`) are copied for each call: charged the same way.
    this.#internals.evaluateArguments = (args, scope) => {
      const evaluated = LIBRARY_EVALUATE_ARGUMENTS.call(this, args, scope);
      budget.work(evaluated[0].length + evaluated[1].size);
      return evaluated;
    };
  }

  override evaluate(statement: TemplateNode | undefined, environment: Environment): RuntimeValue {
    if (statement === undefined) return super.evaluate(statement, environment);
    this.#budget.step();
    if (this.#program.loopSources.has(statement)) {
      // A missing or null source loops zero times; a string loops over its characters (as in Jinja).
      const source = this.#evaluateNode(statement, environment);
      if (source.type === 'UndefinedValue' || source.type === 'NullValue') return makeArray([]);
      // A string's characters are counted (by code units, at least as many) before they are made.
      if (isString(source)) this.#budget.loopSource(source.value.length);
      const items = isString(source)
        ? makeArray(Array.from(source.value, (character) => makeString(character)))
        : source;
      // The library prepares every item before the first iteration, so the size is checked first.
      if (isArray(items)) this.#budget.loopSource(items.value.length);
      else if (isMapping(items)) this.#budget.loopSource(items.value.size);
      return items;
    }
    if (!this.#program.outputNodes.has(statement)) return this.#evaluateNode(statement, environment);
    this.currentExpression = statement;
    const value = this.#evaluateNode(statement, environment);
    if (isFunction(value)) throw new AgentError('TEMPLATE_ERROR', 'cannot print a function; call it or drop it');
    if (value.type === 'NullValue' || value.type === 'UndefinedValue') return value;
    if (isString(value)) {
      this.#budget.output(value.value.length);
      return value;
    }
    // Printed here, within the cap, and handed on as text: the library would print it again, unbounded.
    const text = toText(value, this.#budget);
    this.#budget.output(text.length);
    return makeString(text);
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
        if (!TEMPLATE_FILTERS.has(filterName(node.filter)))
          return this.#checked(super.evaluate(statement, environment));
        return this.#filter(node.filter, this.evaluate(node.operand, environment), environment);
      }
      case 'FilterStatement': {
        // The block's text is printed through the filter: a list result (`{% filter list %}`) is
        // turned into text here, within the cap, rather than by the library's unbounded printing.
        const node = statement as unknown as { body: TemplateNode[]; filter: NamedNode | CallNode };
        const result = TEMPLATE_FILTERS.has(filterName(node.filter))
          ? this.#filter(node.filter, this.#internals.evaluateBlock(node.body, environment), environment)
          : this.#checked(super.evaluate(statement, environment));
        return isString(result) ? result : makeString(toText(result, this.#budget));
      }
      case 'TestExpression': {
        const node = statement as unknown as {
          operand: TemplateNode;
          negate: boolean;
          test: NamedNode;
          argument?: TemplateNode;
        };
        const operand = this.evaluate(node.operand, environment);
        if (node.argument !== undefined) {
          const argumentTest = ARGUMENT_TESTS.get(node.test.value)!;
          return makeBoolean(
            argumentTest(operand, this.evaluate(node.argument, environment), this.#budget) !== node.negate,
          );
        }
        const test = TEMPLATE_TESTS.get(node.test.value);
        if (test !== undefined) return makeBoolean(test(operand) !== node.negate);
        // The library's tests (`is lower`, `is upper`) copy a string to compare it: charged.
        const libraryTest = environment.tests.get(node.test.value);
        if (libraryTest === undefined) throw new AgentError('TEMPLATE_ERROR', `unknown test '${node.test.value}'`);
        if (isString(operand)) this.#budget.work(operand.value.length);
        return makeBoolean(libraryTest(operand) !== node.negate);
      }
      case 'BinaryExpression': {
        const node = statement as unknown as { operator: { value: string }; left: TemplateNode; right: TemplateNode };
        if (node.operator.value === '*')
          return multiply(this.evaluate(node.left, environment), this.evaluate(node.right, environment), this.#budget);
        if (node.operator.value === '%') {
          const left = this.evaluate(node.left, environment);
          const right = this.evaluate(node.right, environment);
          if (!isString(left)) return this.#checked(remainder(left, right));
          // Python's `'%s and %s' % (a, b)`; a single value needs no tuple.
          const values = isArray(right) ? right.value : [right];
          return formatValues(left, values, this.#filterContext(environment));
        }
        if (node.operator.value === '~') {
          // Jinja's `~` prints both sides, so a missing or null side adds nothing (the library refuses them).
          const left = toText(this.evaluate(node.left, environment), this.#budget);
          const right = toText(this.evaluate(node.right, environment), this.#budget);
          this.#budget.size(left.length + right.length);
          return makeString(left + right);
        }
        if (node.operator.value === '+')
          return add(this.evaluate(node.left, environment), this.evaluate(node.right, environment), this.#budget);
        if (node.operator.value === '==' || node.operator.value === '!=') {
          const left = this.evaluate(node.left, environment);
          const right = this.evaluate(node.right, environment);
          // Two texts are compared character by character: charged, as a scan.
          if (isString(left) && isString(right)) this.#budget.work(Math.min(left.value.length, right.value.length));
          // The library's (loose) comparison of the plain values, kept as it is.
          // biome-ignore lint/suspicious/noDoubleEquals: the library's loose equality is the behaviour kept
          const equal = left.value == right.value;
          return makeBoolean(equal === (node.operator.value === '=='));
        }
        if (node.operator.value === 'in' || node.operator.value === 'not in') {
          const member = contains(
            this.evaluate(node.left, environment),
            this.evaluate(node.right, environment),
            this.#budget,
          );
          return makeBoolean(member !== (node.operator.value === 'not in'));
        }
        return this.#checked(super.evaluate(statement, environment));
      }
      case 'CallExpression':
      case 'CallStatement':
        this.#budget.enterCall();
        try {
          // Macros, methods (`upper()`, `split()`) and functions build their result before it is seen.
          return chargeBuilt(super.evaluate(statement, environment), this.#budget);
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
    const target = this.evaluate(node.object, environment);
    if (node.computed && node.property.type === 'SliceExpression') {
      // The library slices a string through an array of its characters: that copy is charged first.
      if (isString(target)) this.#budget.work(target.value.length);
      return chargeBuilt(this.#internals.evaluateSliceExpression(target, node.property, environment), this.#budget);
    }
    let key: RuntimeValue;
    if (node.computed) key = this.evaluate(node.property, environment);
    else if (node.property.type === 'IntegerLiteral') key = makeInteger(node.property.value as number);
    else key = makeString(node.property.value as string);
    const asCallee = this.#program.callees.has(statement);
    // A string method (`upper()`, `split()`, `startswith()`...) reads the text: charged as a scan.
    if (asCallee && isString(target) && isString(key)) this.#budget.work(target.value.length);
    if (asCallee && isString(target) && isString(key) && key.value === 'replace')
      return this.#stringReplace(target.value);
    if (asCallee && isString(target) && isString(key) && key.value === 'join') return this.#stringJoin(target.value);
    return readMember(target, key, asCallee);
  }

  /** Python's `separator.join(items)`, which the library's strings lack. */
  #stringJoin(separator: string): RuntimeValue {
    return makeFunction(([items]) => {
      if (items === undefined || !isArray(items)) throw new AgentError('TEMPLATE_ERROR', 'join() takes a list');
      return makeString(joinTexts(items.value, separator, this.#budget));
    });
  }

  /** `text.replace(old, new, count)`, with the result size checked before it is built. */
  #stringReplace(text: string): RuntimeValue {
    return makeFunction((args) => {
      const keywords =
        args.at(-1)?.type === 'KeywordArgumentsValue'
          ? (args.pop()!.value as Map<string, RuntimeValue>)
          : new Map<string, RuntimeValue>();
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
      filter.type === 'CallExpression'
        ? this.#internals.evaluateArguments((filter as CallNode).args, environment)
        : [[], new Map()];
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

  /**
   * The library's own filters (`title`, `sort`, `reverse`, ...) with what they build charged. The
   * library calls `this.applyFilter` for every filter node; it is private in its types, so the
   * constructor puts this function on the instance in its place.
   */
  #libraryFilter(operand: RuntimeValue, filter: NamedNode | CallNode, environment: Environment): RuntimeValue {
    // They walk the whole list or object (sorting compares about n·log2(n) times): charged first.
    const size = isArray(operand) ? operand.value.length : isMapping(operand) ? operand.value.size : 0;
    this.#budget.work(filterName(filter) === 'sort' ? size * Math.ceil(Math.log2(size + 1)) : size);
    const result = LIBRARY_APPLY_FILTER.call(this, operand, filter, environment);
    return result === operand ? result : chargeBuilt(result, this.#budget);
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
