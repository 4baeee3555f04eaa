/**
 * Reflection benchmarks (issue 4):
 * - reflection iterations per second: a `reflection.loop` of 1,000 iterations whose generator is
 *   an `llm.call` on an instant scripted model returning a 10-field JSON object that always misses
 *   one required field, checked by a schema evaluator (so every iteration runs: generate, extract
 *   and parse the JSON, validate, record history, emit the event, pick the best). Measured
 *   through the engine (with llm events, budgets and the in-memory trace store). Target ≥ 5,000/s.
 * - schema validations per second for the same 10-field object (compiled once, all errors
 *   collected), valid and invalid instances.
 */
import { createMemoryStores, loadAgent, runAgent } from '../src/index.js';
import type { ActionContext } from '../src/core/action.js';
import type { LlmProvider, LlmResponse } from '../src/core/model-provider.js';
import { reflectionLoop } from '../src/reflection/reflection-loop.js';
import { compileSchema } from '../src/schema/compile-schema.js';
import type { BenchResult } from './bench-result.js';

/** One loop's iterations: the host ceiling of `max_iterations` (100, docs/security.md). */
const ITERATIONS = 100;
const TARGET_ITERATIONS_PER_SECOND = 5000;

const schema = {
  type: 'object',
  required: ['id', 'name', 'email', 'age', 'active', 'score', 'tags', 'country', 'created', 'notes'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer', minimum: 1 },
    name: { type: 'string', minLength: 1, maxLength: 100 },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    active: { type: 'boolean' },
    score: { type: 'number', minimum: 0, maximum: 1 },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
    country: { type: 'string', enum: ['NL', 'FR', 'DE', 'US', 'JP'] },
    created: { type: 'string', format: 'date-time' },
    notes: { type: 'string', pattern: '^[^<>]*$' },
  },
};

const valid = {
  id: 7,
  name: 'Ada',
  email: 'ada@example.org',
  age: 36,
  active: true,
  score: 0.9,
  tags: ['math', 'engines'],
  country: 'NL',
  created: '2026-11-22T10:00:00Z',
  notes: 'first programmer',
};
const { notes: _dropped, ...missingOne } = valid;
const invalidText = JSON.stringify(missingOne);

function instantModel(): LlmProvider {
  const response: LlmResponse = {
    content: invalidText,
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    model: 'scripted',
    finish_reason: 'stop',
  };
  return {
    generate: async () => ({ ...response }),
    stream: async function* () {
      yield { type: 'done', response } as never;
    },
  };
}

const agentText = JSON.stringify({
  name: 'reflection-bench',
  settings: { limits: { max_llm_calls: ITERATIONS * 2, max_steps: 10 } },
  nodes: [
    {
      name: 'loop',
      uses: 'reflection.loop',
      with: {
        generator: { action: 'llm.call', prompt: 'Person {{ state.n }} as JSON' },
        evaluator: { type: 'schema', schema },
        max_iterations: ITERATIONS,
        on_failure: 'return_best',
      },
    },
  ],
});

async function reflectionIterationsPerSecond(): Promise<number> {
  const agent = loadAgent(agentText);
  const timed = async () => {
    const stores = createMemoryStores();
    const started = performance.now();
    const result = await runAgent(agent, { n: 1 }, { ...stores, llm: { providerFactory: () => instantModel() } })
      .result;
    const elapsed = performance.now() - started;
    if (result.status !== 'completed' || result.state.iterations !== ITERATIONS)
      throw new Error(`bench run ended ${result.status}: ${JSON.stringify(result.error)}`);
    return elapsed;
  };
  return medianRate(timed);
}

/** Iterations/s from the median of five timed runs after two warm-up runs (JIT). */
async function medianRate(timed: () => Promise<number>): Promise<number> {
  await timed();
  await timed();
  const samples: number[] = [];
  for (let index = 0; index < 5; index += 1) samples.push(await timed());
  samples.sort((left, right) => left - right);
  return Math.round(ITERATIONS / (samples[2]! / 1000));
}

/** The loop alone: a minimal context whose generator action answers instantly (no engine events or trace). */
async function inProcessIterationsPerSecond(): Promise<number> {
  const compiled = compileSchema(schema, { where: { field: 'bench' } });
  const response: LlmResponse = {
    content: invalidText,
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    model: 'scripted',
    finish_reason: 'stop',
  };
  const context = {
    runId: 'bench',
    agentName: 'bench',
    node: 'loop',
    state: { n: 1 },
    variables: {},
    settings: {},
    signal: new AbortController().signal,
    role: undefined,
    memory: new Map(),
    resume: undefined,
    traceStore: undefined,
    scope: (extra?: Record<string, unknown>) => ({ ...extra }),
    emit: () => undefined,
    callLlm: async () => ({ ...response }),
    callAction: async () => ({ ...response }),
    requestConfirmation: () => {
      throw new Error('no confirmation in the bench');
    },
    listActions: () => [],
  } as unknown as ActionContext;
  const params = {
    generator: {
      kind: 'action' as const,
      action: 'llm.call',
      llm: true,
      params: { source: {}, isStatic: true, render: () => ({ prompt: 'x' }) },
    },
    evaluator: { type: 'schema' as const, schema: compiled, coerce: true },
    maxIterations: ITERATIONS,
    onFailure: 'return_best' as const,
    continueFromState: false,
  };
  const timed = async () => {
    const started = performance.now();
    const result = await reflectionLoop(params, context);
    if (result.iterations !== ITERATIONS) throw new Error('bench loop ended early');
    return performance.now() - started;
  };
  return medianRate(timed);
}

function validationsPerSecond(instance: unknown): number {
  const compiled = compileSchema(schema, { where: { field: 'bench' } });
  const count = 20_000;
  for (let index = 0; index < 2000; index += 1) compiled.validate(instance);
  const started = performance.now();
  for (let index = 0; index < count; index += 1) compiled.validate(instance);
  return Math.round(count / ((performance.now() - started) / 1000));
}

export async function run(): Promise<BenchResult[]> {
  const iterations = await reflectionIterationsPerSecond();
  const inProcess = await inProcessIterationsPerSecond();
  return [
    {
      name: 'reflection.loop iterations/s (engine, scripted model, schema evaluator, 10-field object)',
      value: iterations,
      unit: 'iterations/s',
      baseline_value: TARGET_ITERATIONS_PER_SECOND,
      ratio: Math.round((iterations / TARGET_ITERATIONS_PER_SECOND) * 100) / 100,
    },
    {
      name: 'reflection.loop iterations/s (in-process loop only, same generator/evaluator)',
      value: inProcess,
      unit: 'iterations/s',
      baseline_value: TARGET_ITERATIONS_PER_SECOND,
      ratio: Math.round((inProcess / TARGET_ITERATIONS_PER_SECOND) * 100) / 100,
    },
    {
      name: 'schema validations/s (10-field object, valid)',
      value: validationsPerSecond(valid),
      unit: 'validations/s',
    },
    {
      name: 'schema validations/s (10-field object, one error)',
      value: validationsPerSecond(missingOne),
      unit: 'validations/s',
    },
  ];
}
