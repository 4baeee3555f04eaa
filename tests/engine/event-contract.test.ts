// The events contract (src/core/events.ts): the doc table in docs/execution-model.md lists every
// event type with exactly the fields of its type, and a wrong field does not compile. The
// `@ts-expect-error` lines below are checked by `npm run typecheck`; the compiler-API tests check
// the same inside vitest, so they also fail when run alone.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, type EmitEvent, type EventType } from '../../src/core/events.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONTRACT = path.join(ROOT, 'src/core/events.ts');

/** Collects emits without running an engine: the calls below are about what compiles. */
function recorder(): { emit: EmitEvent; seen: Array<{ type: EventType; data: unknown }> } {
  const seen: Array<{ type: EventType; data: unknown }> = [];
  const emit: EmitEvent = (type, data) => void seen.push({ type, data });
  return { emit, seen };
}

describe('emit is typed by the event type', () => {
  it('accepts each type with its own fields and refuses other names (tsc)', () => {
    const { emit, seen } = recorder();
    emit('tool_result', { tool: 'calc', call_id: 'c1', status: 'ok', observation: '4', round: 1 });
    emit('log', {
      source: 'model',
      message: 'retrying',
      attempt: 2,
      delay_ms: 100,
      error: { code: 'LLM_HTTP_503', message: 'busy' },
    });
    emit('node_end', { update: {}, duration_ms: 1 });
    // @ts-expect-error the observation is `observation`, not `result`
    emit('tool_result', { tool: 'calc', call_id: 'c1', status: 'ok', result: '4', round: 1 });
    // @ts-expect-error a retry's error is `error: {code, message}`, not `code`
    emit('log', { source: 'model', message: 'retrying', attempt: 2, delay_ms: 100, code: 'LLM_HTTP_503' });
    // @ts-expect-error durations are `duration_ms`
    emit('node_end', { update: {}, duration: 1 });
    // @ts-expect-error one member of a union at a time: a ReAct step has no `round`
    emit('tool_start', { tool: 't', arguments: {}, call_id: 'c', step: 1, tier: 1, autonomous: true, round: 1 });
    expect(seen.map((entry) => entry.type)).toEqual([
      'tool_result',
      'log',
      'node_end',
      'tool_result',
      'log',
      'node_end',
      'tool_start',
    ]);
  });

  it('the compiler refuses a wrong field and accepts the right one (compiler API)', () => {
    const good = diagnosticsOf(
      `emit('tool_result', { tool: 't', call_id: 'c', status: 'ok', observation: 'x', step: 1 });`,
    );
    expect(good).toEqual([]);
    const wrong = diagnosticsOf(
      `emit('tool_result', { tool: 't', call_id: 'c', success: true, result: 'x', step: 1 });`,
    );
    expect(wrong.join('\n')).toMatch(/success|result/);
    const wrongType = diagnosticsOf(
      `emit('tool_result', { tool: 't', call_id: 'c', status: 'fine', observation: 'x', step: 1 });`,
    );
    expect(wrongType.length).toBeGreaterThan(0);
  });
});

describe('docs/execution-model.md event table', () => {
  const rows = docTable();
  const fields = contractFields();

  it('lists every event type of the union, once, and nothing else', () => {
    expect([...rows.keys()].sort()).toEqual([...EVENT_TYPES].sort());
    expect([...fields.keys()].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it.each([...EVENT_TYPES])("%s: the documented fields are the type's fields, optional ones marked ?", (type) => {
    expect(rows.get(type)).toEqual(fields.get(type));
  });
});

/** `type` → sorted field names (`name?` when not always present), from the doc table. */
function docTable(): Map<string, string[]> {
  const text = readFileSync(path.join(ROOT, 'docs/execution-model.md'), 'utf8');
  const rows = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const match = /^\| `([a-z_]+)` \| ([^|]*) \|/.exec(line);
    if (match === null) continue;
    expect(rows.has(match[1]!), `${match[1]} appears twice`).toBe(false);
    rows.set(match[1]!, [...match[2]!.matchAll(/`([a-z_]+\??)`/g)].map((field) => field[1]!).sort());
  }
  return rows;
}

/** `type` → sorted field names (`name?` when not required in every member), from the type. */
function contractFields(): Map<string, string[]> {
  const program = ts.createProgram([CONTRACT], compilerOptions());
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(CONTRACT)!)!;
  const map = checker.getDeclaredTypeOfSymbol(module.exports!.get(ts.escapeLeadingUnderscores('EventDataMap'))!);
  const result = new Map<string, string[]>();
  for (const entry of map.getProperties()) {
    const data = checker.getTypeOfSymbol(entry);
    const members = data.isUnion() ? data.types : [data];
    const names = new Set(members.flatMap((member) => member.getProperties().map((property) => property.name)));
    const required = (name: string) =>
      members.every((member) => {
        const property = member.getProperty(name);
        return property !== undefined && (property.flags & ts.SymbolFlags.Optional) === 0;
      });
    result.set(entry.name, [...names].map((name) => (required(name) ? name : `${name}?`)).sort());
  }
  return result;
}

/** The compiler's messages for a snippet that calls a typed `emit`. */
function diagnosticsOf(body: string): string[] {
  const file = path.join(ROOT, 'tests/engine/__event-snippet__.ts');
  const source = `import type { EmitEvent } from '${CONTRACT.replace(/\\/g, '/').replace(/\.ts$/, '.js')}';\ndeclare const emit: EmitEvent;\n${body}\n`;
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.fileExists = (name) => name === file || fileExists(name);
  host.getSourceFile = (name, version, onError) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, onError);
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

function compilerOptions(): ts.CompilerOptions {
  return {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
    lib: ['lib.es2022.d.ts', 'lib.webworker.d.ts'],
    skipLibCheck: true,
  };
}
