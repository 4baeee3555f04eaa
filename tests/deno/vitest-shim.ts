/**
 * A small stand-in for the part of vitest the shared conformance suites use, so those same suites
 * run inside Deno (which cannot load vitest). The import map in this folder points `vitest` here.
 * `run()` executes what was registered and returns one result per test.
 */

type TestBody = () => unknown;
interface Registered {
  name: string;
  body: TestBody;
  skipped: boolean;
}
export interface TestResult {
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  error?: string;
}

const tests: Registered[] = [];
const afterEachHooks: TestBody[] = [];
const prefixes: string[] = [];

export function describe(name: string, body: () => void): void {
  prefixes.push(name);
  try {
    body();
  } finally {
    prefixes.pop();
  }
}

function register(name: string, body: TestBody, skipped: boolean): void {
  tests.push({ name: [...prefixes, name].join(' > '), body, skipped });
}

export const it = Object.assign((name: string, body: TestBody) => register(name, body, false), {
  skipIf: (condition: boolean) => (name: string, body: TestBody) => register(name, body, condition),
});
export const test = it;

export function afterEach(hook: TestBody): void {
  afterEachHooks.push(hook);
}
export function beforeAll(hook: TestBody): void {
  void hook;
  throw new Error('beforeAll is not supported by the Deno shim');
}

/** Runs every registered test in order. */
export async function run(filter?: (name: string) => boolean): Promise<TestResult[]> {
  const results: TestResult[] = [];
  for (const entry of tests) {
    if (filter !== undefined && !filter(entry.name)) continue;
    if (entry.skipped) {
      results.push({ name: entry.name, status: 'skipped' });
      continue;
    }
    try {
      await entry.body();
      results.push({ name: entry.name, status: 'passed' });
    } catch (error) {
      results.push({
        name: entry.name,
        status: 'failed',
        error: error instanceof Error ? error.message : String(error),
      });
    } finally {
      for (const hook of afterEachHooks) await hook();
    }
  }
  return results;
}

function show(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 300 ? text.slice(0, 300) + '…' : text;
  } catch {
    return String(value);
  }
}

/** Deep equality that, like vitest's toEqual, treats undefined properties as absent. */
function equal(left: unknown, right: unknown): boolean {
  if (Object.is(left, right)) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left) && Array.isArray(right))
    return left.length === right.length && left.every((item, index) => equal(item, right[index]));
  if (left instanceof Date || right instanceof Date)
    return left instanceof Date && right instanceof Date && left.getTime() === right.getTime();
  const leftKeys = Object.keys(left).filter((key) => (left as Record<string, unknown>)[key] !== undefined);
  const rightKeys = Object.keys(right).filter((key) => (right as Record<string, unknown>)[key] !== undefined);
  if (leftKeys.length !== rightKeys.length) return false;
  return leftKeys.every((key) =>
    equal((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]),
  );
}

function matches(actual: unknown, expected: unknown): boolean {
  if (typeof expected !== 'object' || expected === null) return Object.is(actual, expected);
  if (typeof actual !== 'object' || actual === null) return false;
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, index) => matches(actual[index], item))
    );
  return Object.entries(expected).every(([key, value]) => matches((actual as Record<string, unknown>)[key], value));
}

function assertion(actual: unknown, negate: boolean) {
  const check = (passed: boolean, description: string) => {
    if (passed === negate) throw new Error(`expected ${show(actual)} ${negate ? 'not ' : ''}${description}`);
  };
  return {
    toBe: (expected: unknown) => check(Object.is(actual, expected), `to be ${show(expected)}`),
    toEqual: (expected: unknown) => check(equal(actual, expected), `to equal ${show(expected)}`),
    toMatchObject: (expected: unknown) => check(matches(actual, expected), `to match ${show(expected)}`),
    toHaveLength: (length: number) =>
      check((actual as { length?: number })?.length === length, `to have length ${length}`),
    toBeUndefined: () => check(actual === undefined, 'to be undefined'),
    toBeDefined: () => check(actual !== undefined, 'to be defined'),
    toBeLessThanOrEqual: (limit: number) => check((actual as number) <= limit, `to be <= ${limit}`),
    toBeGreaterThanOrEqual: (limit: number) => check((actual as number) >= limit, `to be >= ${limit}`),
    toBeGreaterThan: (limit: number) => check((actual as number) > limit, `to be > ${limit}`),
    toContain: (part: unknown) =>
      check(
        typeof actual === 'string' ? actual.includes(part as string) : Array.isArray(actual) && actual.includes(part),
        `to contain ${show(part)}`,
      ),
  };
}

export function expect(actual: unknown) {
  return Object.assign(assertion(actual, false), {
    not: assertion(actual, true),
    rejects: {
      async toMatchObject(expected: unknown): Promise<void> {
        try {
          await actual;
        } catch (error) {
          assertion(error, false).toMatchObject(expected);
          return;
        }
        throw new Error('expected the promise to reject');
      },
    },
  });
}
