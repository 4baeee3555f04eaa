/**
 * Every time and size an agent can set has a ceiling (issue 24 cause 5), and docs/security.md
 * ("Ceilings on times and sizes") lists them all: each numeric property of the agent schema and
 * of every built-in action's parameters (nested ones included) has a `maximum` equal to the
 * ceiling of its row, and each row names a property that exists. A literal past a ceiling is a
 * load error naming the key and the ceiling; a templated one fails the call when rendered.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinActions } from '../../src/builtins.js';
import * as ceilings from '../../src/core/setting-ceilings.js';
import { BUDGET_CEILINGS } from '../../src/graph/run-budget.js';
import agentSchema from '../../src/spec/agent-schema.json';
import { loadError, runYaml } from '../engine/helpers.js';
import { ROOT } from '../support/run-cli.js';

/** Numbers that are values, not budgets (docs/security.md names the same list). */
const NOT_BUDGETS = new Set([
  'temperature',
  'top_p',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'threshold',
  'consensus_threshold',
  'min_success_rate',
  'max_execution_time_multiplier',
  'version',
  'value',
]);

/** Two to the 31st minus one: a JavaScript timer given more fires at once. */
const TIMER_LIMIT = 2 ** 31 - 1;

interface NumericProperty {
  /** `settings.http.timeout_ms`, `nodes[].timeout_ms`, or `with.timeout` for action parameters. */
  key: string;
  /** The action, for parameters. */
  action?: string;
  maximum: number | undefined;
}

type Schema = Record<string, unknown>;
const definitions = agentSchema.definitions as Record<string, Schema>;

function collect(
  schema: unknown,
  key: string[],
  found: NumericProperty[],
  action: string | undefined,
  seen: Set<unknown>,
): void {
  if (typeof schema !== 'object' || schema === null || seen.has(schema)) return;
  seen.add(schema);
  let node = schema as Schema;
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#/definitions/'))
    node = definitions[node.$ref.slice('#/definitions/'.length)] ?? {};
  const types = ([] as unknown[]).concat(node.type);
  const name = key[key.length - 1];
  if ((types.includes('integer') || types.includes('number')) && name !== undefined && !NOT_BUDGETS.has(name)) {
    found.push({
      key: action === undefined ? key.join('.').replace(/\.\[\]/g, '[]') : `with.${name}`,
      ...(action !== undefined ? { action } : {}),
      maximum: typeof node.maximum === 'number' ? node.maximum : undefined,
    });
  }
  for (const [property, sub] of Object.entries((node.properties ?? {}) as Schema))
    collect(sub, [...key, property], found, action, new Set(seen));
  if (typeof node.additionalProperties === 'object')
    collect(node.additionalProperties, [...key, '*'], found, action, new Set(seen));
  if (typeof node.items === 'object' && !Array.isArray(node.items))
    collect(node.items, [...key, '[]'], found, action, new Set(seen));
  for (const branch of ['anyOf', 'oneOf', 'allOf'] as const)
    for (const sub of (node[branch] ?? []) as unknown[]) collect(sub, key, found, action, new Set(seen));
}

function numericProperties(): NumericProperty[] {
  const found: NumericProperty[] = [];
  collect(agentSchema.properties.settings, ['settings'], found, undefined, new Set());
  collect(definitions.node, ['nodes[]'], found, undefined, new Set());
  for (const action of builtinActions()) collect(action.parameters, [], found, action.name, new Set());
  return found;
}

/** The rows of the table: key (with an optional leading action name) → ceiling. */
function documentedCeilings(): Map<string, number> {
  const text = readFileSync(path.join(ROOT, 'docs/security.md'), 'utf8');
  const section = text.split('## Ceilings on times and sizes')[1]?.split('\n## ')[0] ?? '';
  const rows = new Map<string, number>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const key = /^`([^`]+)`$/.exec(cells[1] ?? '')?.[1];
    if (key === undefined) continue;
    const ceiling = Number((cells[4] ?? '').replace(/,/g, ''));
    expect(Number.isFinite(ceiling), `row ${key}: ceiling ${cells[4]}`).toBe(true);
    expect(rows.has(key), `row ${key} twice`).toBe(false);
    rows.set(key, ceiling);
  }
  return rows;
}

describe('ceilings on times and sizes', () => {
  const properties = numericProperties();
  const rows = documentedCeilings();

  it('finds the properties of both the agent schema and the actions', () => {
    expect(properties.some((property) => property.key === 'settings.http.timeout_ms')).toBe(true);
    expect(properties.some((property) => property.action === 'llm.call' && property.key === 'with.timeout')).toBe(true);
    expect(rows.size).toBeGreaterThan(30);
  });

  it('gives every numeric property a maximum, under the timer limit, equal to its documented ceiling', () => {
    const used = new Set<string>();
    const problems: string[] = [];
    for (const property of properties) {
      const label = property.action === undefined ? property.key : `${property.action} ${property.key}`;
      const row = property.action !== undefined && rows.has(label) ? label : property.key;
      used.add(row);
      if (property.maximum === undefined) problems.push(`${label}: no maximum`);
      else if (property.maximum > TIMER_LIMIT) problems.push(`${label}: maximum ${property.maximum} overflows a timer`);
      else if (rows.get(row) !== property.maximum)
        problems.push(`${label}: maximum ${property.maximum}, table row ${row}: ${rows.get(row)}`);
    }
    expect(problems).toEqual([]);
    const unused = [...rows.keys()].filter((key) => !used.has(key));
    expect(unused, 'rows naming no property').toEqual([]);
  });

  it('keeps the shared constants, the run budgets and the agent schema the same', () => {
    const settings = agentSchema.definitions.settings.properties;
    expect(settings.llm.properties.timeout.maximum).toBe(ceilings.MODEL_TIMEOUT_SECONDS_CEILING);
    expect(settings.llm.properties.max_tokens.maximum).toBe(ceilings.MODEL_MAX_TOKENS_CEILING);
    expect(settings.llm.properties.max_retries.maximum).toBe(ceilings.MODEL_RETRIES_CEILING);
    expect(settings.http.properties.timeout_ms.maximum).toBe(ceilings.HTTP_TIMEOUT_MS_CEILING);
    expect(settings.http.properties.max_bytes.maximum).toBe(ceilings.HTTP_MAX_BYTES_CEILING);
    expect(agentSchema.definitions.node.properties.timeout_ms.maximum).toBe(ceilings.NODE_TIMEOUT_MS_CEILING);
    for (const [name, ceiling] of Object.entries(BUDGET_CEILINGS)) {
      expect((settings.limits.properties as Record<string, { maximum: number }>)[name]?.maximum, name).toBe(ceiling);
    }
  });

  it('refuses a literal past a ceiling at load, naming the key and the ceiling', () => {
    const cases: Array<[string, string, number]> = [
      ['settings:\n  http: { timeout_ms: 2000000000 }\n', 'settings.http.timeout_ms', ceilings.HTTP_TIMEOUT_MS_CEILING],
      ['settings:\n  llm: { timeout: 2000000 }\n', 'settings.llm.timeout', ceilings.MODEL_TIMEOUT_SECONDS_CEILING],
      ['settings:\n  http: { max_bytes: 1000000000 }\n', 'settings.http.max_bytes', ceilings.HTTP_MAX_BYTES_CEILING],
    ];
    for (const [settings, key, ceiling] of cases) {
      const error = loadError(`${settings}nodes:\n  - { name: a, run: "return {}" }\n`);
      expect(error.code, key).toBe('INVALID_AGENT');
      expect(error.message, key).toContain(key);
      expect(error.message, key).toContain(String(ceiling));
    }
    const node = loadError('nodes:\n  - { name: a, run: "return {}", timeout_ms: 2147483648 }\n');
    expect(node.message).toContain(String(ceilings.NODE_TIMEOUT_MS_CEILING));
    const param = loadError('nodes:\n  - { name: a, uses: llm.call, with: { prompt: hi, timeout: 2000000 } }\n');
    expect(param.code).toBe('INVALID_PARAMS');
    expect(param.message).toContain('timeout');
    expect(param.message).toContain(String(ceilings.MODEL_TIMEOUT_SECONDS_CEILING));
  });

  it('refuses a templated model timeout past its ceiling when the call is made', async () => {
    const yaml =
      'settings:\n  llm: { provider: scripted, scripted: ["ok"] }\nnodes:\n  - { name: ask, uses: llm.call, with: { prompt: hi, timeout: "{{ state.t }}" }, output: answer }\n';
    const over = await runYaml(yaml, { t: 2_000_000 });
    expect(over.result.error?.code).toBe('INVALID_PARAMS');
    expect(over.result.error?.message).toContain(`ceiling ${ceilings.MODEL_TIMEOUT_SECONDS_CEILING}`);
    const within = await runYaml(yaml, { t: 30 });
    expect(within.result.status, JSON.stringify(within.result.error)).toBe('completed');
  });
});
