/**
 * Arithmetic for `math.calculate`, evaluated without `eval`: a tokenizer, a Pratt parser into a
 * small tree, and an evaluator. Grammar: numbers (`12`, `0.5`, `.5`, `1e-3`), `+ - * / %`, `**`
 * (right-associative, binding tighter than a unary minus on its left, as in Python), parentheses,
 * unary `+`/`-`, and the functions `sqrt abs min max round floor ceil`. Expected failures
 * (syntax, division by zero, a non-finite result, a cap) are values, never exceptions.
 */

/** Caps on an expression; defaults allow any arithmetic a person would write. */
export interface MathLimits {
  maxLength: number;
  maxTokens: number;
  maxDepth: number;
}

export const DEFAULT_MATH_LIMITS: MathLimits = { maxLength: 1000, maxTokens: 500, maxDepth: 50 };

export type MathOutcome = { ok: true; value: number } | { ok: false; error: string };

type Token =
  | { kind: 'number'; value: number; position: number }
  | { kind: 'name'; value: string; position: number }
  | { kind: 'operator'; value: string; position: number }
  | { kind: 'end'; position: number };

type Expression =
  | { kind: 'number'; value: number }
  | { kind: 'unary'; operator: string; operand: Expression }
  | { kind: 'binary'; operator: string; left: Expression; right: Expression }
  | { kind: 'call'; name: string; args: Expression[] };

const FUNCTIONS = new Map<string, { min: number; max: number; apply: (args: number[]) => MathOutcome }>([
  ['sqrt', { min: 1, max: 1, apply: ([x]) => (x! < 0 ? fail('sqrt of a negative number') : ok(Math.sqrt(x!))) }],
  ['abs', { min: 1, max: 1, apply: ([x]) => ok(Math.abs(x!)) }],
  ['min', { min: 1, max: 100, apply: (args) => ok(Math.min(...args)) }],
  ['max', { min: 1, max: 100, apply: (args) => ok(Math.max(...args)) }],
  ['round', { min: 1, max: 2, apply: ([x, digits]) => roundTo(x!, digits ?? 0) }],
  ['floor', { min: 1, max: 1, apply: ([x]) => ok(Math.floor(x!)) }],
  ['ceil', { min: 1, max: 1, apply: ([x]) => ok(Math.ceil(x!)) }],
]);

/** Binding powers: higher binds tighter. `**` is right-associative. */
const INFIX: Record<string, number> = { '+': 10, '-': 10, '*': 20, '/': 20, '%': 20, '**': 40 };
const UNARY_POWER = 30;

/**
 * Evaluates an arithmetic expression.
 *
 * @example evaluateMath('2 ** 3 ** 2 - -4 / 2') // → {ok: true, value: 514}
 */
export function evaluateMath(expression: string, limits: MathLimits = DEFAULT_MATH_LIMITS): MathOutcome {
  if (typeof expression !== 'string') return fail('expression must be a string');
  if (expression.length > limits.maxLength)
    return fail(`expression too long (${expression.length} characters; limit ${limits.maxLength})`);
  const tokens = tokenize(expression, limits);
  if (!Array.isArray(tokens)) return tokens;
  const parsed = parse(tokens, limits);
  if (!parsed.ok) return parsed;
  const result = evaluate(parsed.tree);
  if (!result.ok) return result;
  if (!Number.isFinite(result.value)) return fail('the result is not a finite number');
  // Trim binary floating-point noise (0.1 + 0.2 → 0.3) without changing integers.
  return ok(Number.isInteger(result.value) ? result.value : Number(result.value.toPrecision(15)));
}

function tokenize(text: string, limits: MathLimits): Token[] | (MathOutcome & { ok: false }) {
  const tokens: Token[] = [];
  let index = 0;
  while (index < text.length) {
    const character = text[index]!;
    if (/\s/.test(character)) {
      index++;
      continue;
    }
    const number = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(text.slice(index, index + 400));
    if (number !== null) {
      tokens.push({ kind: 'number', value: Number(number[0]), position: index });
      index += number[0].length;
    } else if (/[A-Za-z_]/.test(character)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(index, index + 64))![0];
      tokens.push({ kind: 'name', value: name, position: index });
      index += name.length;
    } else if (text.startsWith('**', index)) {
      tokens.push({ kind: 'operator', value: '**', position: index });
      index += 2;
    } else if ('+-*/%(),'.includes(character)) {
      tokens.push({ kind: 'operator', value: character, position: index });
      index++;
    } else {
      return fail(`unexpected character '${character}' at position ${index + 1}`);
    }
    if (tokens.length > limits.maxTokens) return fail(`expression has too many tokens (limit ${limits.maxTokens})`);
  }
  tokens.push({ kind: 'end', position: text.length });
  return tokens;
}

class ParseFailure {
  constructor(readonly message: string) {}
}

function parse(tokens: Token[], limits: MathLimits): { ok: true; tree: Expression } | { ok: false; error: string } {
  let position = 0;
  const peek = (): Token => tokens[position]!;
  const next = (): Token => tokens[position++]!;
  const describe = (token: Token): string =>
    token.kind === 'end' ? 'end of expression' : `'${String(token.value)}' at position ${token.position + 1}`;
  const expectOperator = (value: string): void => {
    const token = next();
    if (token.kind !== 'operator' || token.value !== value)
      throw new ParseFailure(`expected '${value}' but found ${describe(token)}`);
  };

  const parseExpression = (minimumPower: number, depth: number): Expression => {
    if (depth > limits.maxDepth) throw new ParseFailure(`expression nested too deeply (limit ${limits.maxDepth})`);
    let left = parsePrefix(depth);
    for (;;) {
      const token = peek();
      if (token.kind !== 'operator') break;
      const power = INFIX[token.value];
      if (power === undefined || power < minimumPower) break;
      next();
      // Right-associative `**`: the right side may bind at the same power.
      const right = parseExpression(token.value === '**' ? power : power + 1, depth + 1);
      left = { kind: 'binary', operator: token.value, left, right };
    }
    return left;
  };

  const parsePrefix = (depth: number): Expression => {
    const token = next();
    if (token.kind === 'number') return { kind: 'number', value: token.value };
    if (token.kind === 'operator' && (token.value === '-' || token.value === '+')) {
      return { kind: 'unary', operator: token.value, operand: parseExpression(UNARY_POWER, depth + 1) };
    }
    if (token.kind === 'operator' && token.value === '(') {
      const inner = parseExpression(0, depth + 1);
      expectOperator(')');
      return inner;
    }
    if (token.kind === 'name') {
      const definition = FUNCTIONS.get(token.value);
      if (definition === undefined)
        throw new ParseFailure(`unknown name '${token.value}' (functions: ${[...FUNCTIONS.keys()].join(', ')})`);
      expectOperator('(');
      const args: Expression[] = [];
      if (!(peek().kind === 'operator' && (peek() as { value: string }).value === ')')) {
        args.push(parseExpression(0, depth + 1));
        while (peek().kind === 'operator' && (peek() as { value: string }).value === ',') {
          next();
          args.push(parseExpression(0, depth + 1));
        }
      }
      expectOperator(')');
      if (args.length < definition.min || args.length > definition.max) {
        throw new ParseFailure(
          `${token.value}() takes ${definition.min === definition.max ? definition.min : `${definition.min} to ${definition.max}`} argument(s), got ${args.length}`,
        );
      }
      return { kind: 'call', name: token.value, args };
    }
    throw new ParseFailure(`unexpected ${describe(token)}`);
  };

  try {
    const tree = parseExpression(0, 0);
    const rest = peek();
    if (rest.kind !== 'end') throw new ParseFailure(`unexpected ${describe(rest)}`);
    return { ok: true, tree };
  } catch (error) {
    if (error instanceof ParseFailure) return { ok: false, error: error.message };
    throw error;
  }
}

function evaluate(tree: Expression): MathOutcome {
  switch (tree.kind) {
    case 'number':
      return ok(tree.value);
    case 'unary': {
      const operand = evaluate(tree.operand);
      if (!operand.ok) return operand;
      return ok(tree.operator === '-' ? -operand.value : operand.value);
    }
    case 'binary': {
      const left = evaluate(tree.left);
      if (!left.ok) return left;
      const right = evaluate(tree.right);
      if (!right.ok) return right;
      return applyOperator(tree.operator, left.value, right.value);
    }
    case 'call': {
      const values: number[] = [];
      for (const argument of tree.args) {
        const value = evaluate(argument);
        if (!value.ok) return value;
        values.push(value.value);
      }
      return FUNCTIONS.get(tree.name)!.apply(values);
    }
  }
}

function applyOperator(operator: string, left: number, right: number): MathOutcome {
  switch (operator) {
    case '+':
      return ok(left + right);
    case '-':
      return ok(left - right);
    case '*':
      return ok(left * right);
    case '/':
      return right === 0 ? fail('division by zero') : ok(left / right);
    case '%':
      return right === 0 ? fail('modulo by zero') : ok(left % right);
    default: {
      const value = left ** right;
      return Number.isNaN(value) ? fail(`${left} ** ${right} is not a real number`) : ok(value);
    }
  }
}

function roundTo(value: number, digits: number): MathOutcome {
  if (!Number.isInteger(digits) || digits < 0 || digits > 15)
    return fail('round() digits must be an integer from 0 to 15');
  const factor = 10 ** digits;
  return ok(Math.round(value * factor) / factor);
}

function ok(value: number): MathOutcome {
  return { ok: true, value };
}

function fail(error: string): MathOutcome & { ok: false } {
  return { ok: false, error };
}
