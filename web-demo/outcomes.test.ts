// Unit tests (Node) of the web demo's honest outcomes: events folded into a failed or cancelled
// run (error, node, model calls, retries), load errors turned into every editor mark (the
// `details.errors` list read defensively) and where the API key is kept. The probe's diagnosis
// against real servers is in tests/browser/web-demo-probe.test.ts (it needs Node's net module);
// the browser side is tests/browser/web-demo-outcomes.test.ts.
import { describe, expect, it } from 'vitest';
import { Text } from '@codemirror/state';
import type { AgentEvent, EventData, EventType } from '../src/core/events.js';
import { AgentError } from '../src/core/agent-error.js';
import { emptySummary, endRun, failedCalls, summarize } from './run-summary.js';
import { outcomeSentence } from './run-outcome.js';
import { MAX_PROBLEMS, problemsFromLoadError } from './load-problems.js';
import { yamlPathLocator } from './yaml-locator.js';
import { problemText, toDiagnostics } from './diagnostics.js';
import { loadSettings, saveSettings, SESSION_KEY, STORAGE_KEY } from './model-settings.js';

let seq = 0;
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms)).toISOString();
/** An event with some of its type's fields (the names are checked against the events contract). */
const event = <T extends EventType>(type: T, data: Partial<EventData<T>>, node?: string, ms = seq * 10): AgentEvent =>
  ({ type, run_id: 'r1', seq: ++seq, ts: at(ms), ...(node ? { node } : {}), data }) as AgentEvent;

function memoryStorage() {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (key: string) => map.get(key) ?? null,
    setItem: (key: string, value: string) => void map.set(key, value),
    removeItem: (key: string) => void map.delete(key),
  };
}

describe('run outcome from events', () => {
  it('folds a run failed by the model server: the error, its node, the failed call and its retries', () => {
    const httpError = { code: 'LLM_HTTP_500', message: 'the model server answered HTTP 500', node: 'ask' };
    const summary = summarize([
      event('run_start', { agent: 'demo' }),
      event('node_start', {}, 'prepare'),
      event('node_end', {}, 'prepare'),
      event('node_start', {}, 'ask'),
      event('llm_request', { model: 'm' }, 'ask'),
      event(
        'log',
        {
          source: 'model',
          message: 'retrying model call (attempt 2) after LLM_HTTP_500',
          attempt: 2,
          delay_ms: 400,
          error: { code: 'LLM_HTTP_500', message: 'answered HTTP 500' },
        },
        'ask',
      ),
      event(
        'log',
        {
          source: 'model',
          message: 'retrying model call (attempt 3) after LLM_HTTP_500',
          attempt: 3,
          delay_ms: 900,
          error: { code: 'LLM_HTTP_500', message: 'answered HTTP 500' },
        },
        'ask',
      ),
      event(
        'llm_response',
        { model: 'm', error: { code: 'LLM_HTTP_500', message: 'answered HTTP 500' }, attempts: 3, duration_ms: 1400 },
        'ask',
      ),
      event('error', { ...httpError, attempt: 1 }, 'ask'),
      event('error', { ...httpError, fatal: true }, 'ask'),
      event('done', { status: 'failed', stop_reason: 'error', state: {}, error: httpError }),
    ]);
    expect(summary.status).toBe('failed');
    expect(summary.error).toEqual(httpError);
    expect(summary.failed_node).toBe('ask');
    expect(summary.cancelled_node).toBeUndefined();
    // The node's error and the run's end are the same error: listed once.
    expect(summary.errors).toHaveLength(1);
    expect(summary.calls).toHaveLength(1);
    expect(summary.calls[0]).toMatchObject({
      node: 'ask',
      state: 'failed',
      attempts: 3,
      duration_ms: 1400,
      error: { code: 'LLM_HTTP_500' },
    });
    expect(summary.calls[0]!.retries.map((retry) => [retry.attempt, retry.delay_ms])).toEqual([
      [2, 400],
      [3, 900],
    ]);
    expect(outcomeSentence(summary)).toBe('Run failed: LLM_HTTP_500 in node ask. the model server answered HTTP 500');
  });

  it('takes the failed node from the running node when the error names none', () => {
    const summary = summarize([
      event('node_start', {}, 'a'),
      event('node_end', {}, 'a'),
      event('node_start', {}, 'b'),
      event('done', {
        status: 'failed',
        stop_reason: 'max_llm_calls',
        error: { code: 'BUDGET_EXCEEDED', message: 'max_llm_calls (1) reached' },
      }),
    ]);
    expect(summary.failed_node).toBe('b');
    expect(summary.error?.code).toBe('BUDGET_EXCEEDED');
  });

  it('never reads a completed run with failed model calls as clean', () => {
    const summary = summarize([
      event('node_start', {}, 'loop'),
      event('llm_request', {}, 'loop'),
      event('llm_response', { error: { code: 'LLM_UNAVAILABLE', message: 'nothing listening' } }, 'loop'),
      event('llm_request', {}, 'loop'),
      event('llm_response', { attempts: 1 }, 'loop'),
      event('done', { status: 'completed', stop_reason: 'completed', state: {} }),
    ]);
    expect(summary.status).toBe('completed');
    expect(failedCalls(summary)).toHaveLength(1);
    expect(outcomeSentence(summary)).toBe('Run completed, 1 model call failed.');
  });

  it('marks the node a cancelled run stopped in, and its call as cancelled, not failed', () => {
    const summary = summarize([
      event('node_start', {}, 'talk'),
      event('llm_request', {}, 'talk'),
      event('llm_response', { error: { code: 'CANCELLED', message: 'cancelled by the host' } }, 'talk'),
      event('error', { code: 'CANCELLED', message: 'cancelled by the host', fatal: true }, 'talk'),
      event('done', {
        status: 'cancelled',
        stop_reason: 'cancelled',
        error: { code: 'CANCELLED', message: 'cancelled by the host' },
      }),
    ]);
    expect(summary.cancelled_node).toBe('talk');
    expect(summary.failed_node).toBeUndefined();
    expect(summary.calls[0]!.state).toBe('cancelled');
    expect(failedCalls(summary)).toHaveLength(0);
  });

  it('ends a run whose worker was terminated: the running node cancelled, its waiting call too', () => {
    const summary = emptySummary('r1');
    summary.current_node = 'spin';
    summary.calls.push({ node: 'spin', started: at(0), state: 'waiting', retries: [] });
    endRun(summary, {
      status: 'cancelled',
      stop_reason: 'cancelled',
      error: { code: 'CANCELLED', message: 'terminated' },
    });
    expect(summary).toMatchObject({ status: 'cancelled', cancelled_node: 'spin', current_node: undefined });
    expect(summary.calls[0]!.state).toBe('cancelled');
    expect(summary.errors).toEqual([{ code: 'CANCELLED', message: 'terminated' }]);
  });
});

describe('every load problem in the editor', () => {
  const source =
    'name: demo\nsettings:\n  temprature: 2\nnodes:\n  - name: a\n    uses: nope.action\n  - name: b\n    whith: {}\n';

  it('reads the contract list: every problem at its place, with node and field', () => {
    const error = new AgentError('INVALID_AGENT', 'unknown key', {
      file: 'agent.yaml',
      line: 3,
      column: 3,
      details: {
        errors: [
          {
            code: 'INVALID_AGENT',
            message: "unknown key 'temprature' (did you mean 'temperature'?)",
            file: 'agent.yaml',
            line: 3,
            column: 3,
            field: 'settings.llm',
          },
          {
            code: 'UNKNOWN_ACTION',
            message: "unknown action 'nope.action'",
            file: 'agent.yaml',
            line: 6,
            column: 11,
            node: 'a',
            field: 'uses',
          },
          {
            code: 'INVALID_AGENT',
            message: "unknown key 'whith' (did you mean 'with'?)",
            file: 'agent.yaml',
            line: 8,
            column: 5,
            node: 'b',
          },
        ],
      },
    });
    const problems = problemsFromLoadError(error);
    expect(problems.map((problem) => [problem.code, problem.line, problem.column])).toEqual([
      ['INVALID_AGENT', 3, 3],
      ['UNKNOWN_ACTION', 6, 11],
      ['INVALID_AGENT', 8, 5],
    ]);
    expect(problems[1]).toMatchObject({ node: 'a', field: 'uses' });
    const diagnostics = toDiagnostics(Text.of(source.split('\n')), problems);
    expect(diagnostics).toHaveLength(3);
    const doc = Text.of(source.split('\n'));
    expect(diagnostics.map((diagnostic) => doc.lineAt(diagnostic.from).number)).toEqual([3, 6, 8]);
    expect(doc.sliceString(diagnostics[1]!.from, diagnostics[1]!.to)).toBe('nope.action');
    expect(diagnostics[1]!.message).toBe("UNKNOWN_ACTION (node a, field uses): unknown action 'nope.action'");
  });

  it('falls back to the single error, at its location, when there is no list', () => {
    const error = new AgentError('UNKNOWN_ACTION', "unknown action 'nope.action'", {
      file: 'agent.yaml',
      line: 6,
      column: 11,
      node: 'a',
      field: 'uses',
    });
    expect(problemsFromLoadError(error)).toEqual([
      {
        code: 'UNKNOWN_ACTION',
        message: "unknown action 'nope.action'",
        line: 6,
        column: 11,
        node: 'a',
        field: 'uses',
      },
    ]);
    expect(problemsFromLoadError('boom')).toEqual([{ code: 'INVALID_AGENT', message: 'boom' }]);
    expect(
      problemsFromLoadError(new AgentError('INVALID_AGENT', 'x', { details: { errors: 'not a list' } })),
    ).toHaveLength(1);
  });

  it('skips malformed entries, places path-only entries by the YAML, and keeps other files unplaced', () => {
    const error = new AgentError('INVALID_AGENT', 'several', {
      file: 'agent.yaml',
      line: 3,
      column: 3,
      details: {
        errors: [
          null,
          42,
          { message: '' },
          { code: 7, message: 'old schema shape', path: '#/nodes/1/whith' },
          { message: 'in a schema file', file: 'schemas/out.json', line: 2, column: 1 },
          { message: 'bad place', line: -3, column: 'x' },
        ],
      },
    });
    const problems = problemsFromLoadError(error, yamlPathLocator(source));
    expect(problems).toEqual([
      { code: 'INVALID_AGENT', message: 'old schema shape', line: 8, column: 12, field: 'nodes.1.whith' },
      { code: 'INVALID_AGENT', message: 'schemas/out.json: in a schema file' },
      { code: 'INVALID_AGENT', message: 'bad place' },
    ]);
  });

  it('caps the list at 50 and drops exact repeats', () => {
    const errors = Array.from({ length: 120 }, (_, index) => ({
      code: 'INVALID_AGENT',
      message: `problem ${index % 60}`,
      file: 'agent.yaml',
      line: (index % 60) + 1,
      column: 1,
    }));
    const problems = problemsFromLoadError(new AgentError('INVALID_AGENT', 'many', { details: { errors } }));
    expect(problems).toHaveLength(MAX_PROBLEMS);
    expect(new Set(problems.map((problem) => problem.message)).size).toBe(MAX_PROBLEMS);
  });

  it('words a problem with its node and field', () => {
    expect(problemText({ code: 'X', message: 'm' })).toBe('X: m');
    expect(problemText({ code: 'X', message: 'm', field: 'f' })).toBe('X (field f): m');
  });
});

describe('where the API key is kept', () => {
  it('keeps it in the tab by default, in localStorage only when asked, and cleans up when switched back', () => {
    const local = memoryStorage();
    const session = memoryStorage();
    saveSettings(local, { preset: 'custom', api_base: 'http://h:1/v1', model: 'm', api_key: 'sk-secret-1' }, session);
    expect(local.map.get(STORAGE_KEY)).not.toContain('sk-secret-1');
    expect(session.map.get(SESSION_KEY)).toBe('sk-secret-1');
    expect(loadSettings(local, session).settings).toMatchObject({ api_key: 'sk-secret-1', key_storage: 'session' });
    // A new tab has no session entry: the key is gone.
    expect(loadSettings(local, memoryStorage()).settings.api_key).toBe('');

    saveSettings(
      local,
      { preset: 'custom', api_base: 'http://h:1/v1', model: 'm', api_key: 'sk-secret-1', key_storage: 'local' },
      session,
    );
    expect(local.map.get(STORAGE_KEY)).toContain('sk-secret-1');
    expect(session.map.has(SESSION_KEY)).toBe(false);
    expect(loadSettings(local, memoryStorage()).settings).toMatchObject({
      api_key: 'sk-secret-1',
      key_storage: 'local',
    });

    saveSettings(
      local,
      { preset: 'custom', api_base: 'http://h:1/v1', model: 'm', api_key: 'sk-secret-1', key_storage: 'session' },
      session,
    );
    expect(local.map.get(STORAGE_KEY)).not.toContain('sk-secret-1');
  });

  it('reads a key an older version saved in localStorage as "remember in this browser"', () => {
    const local = memoryStorage();
    local.setItem(
      STORAGE_KEY,
      JSON.stringify({ preset: 'custom', api_base: 'http://h:1/v1', model: 'm', api_key: 'old-key' }),
    );
    expect(loadSettings(local).settings).toMatchObject({ api_key: 'old-key', key_storage: 'local' });
  });
});
