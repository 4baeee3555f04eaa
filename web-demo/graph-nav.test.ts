// The graph navigator's and the comparison's pure parts in Node: pauses for the next run added to
// a loaded agent (a copy; an unknown node refused with the nearest name), where a paused run waits
// in the summary, waiting model calls matched without scanning every call, the older run as A.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { loadAgent } from '../src/load-agent-with-scripts.js';
import { withPauses } from './engine-host.js';
import { summarize } from './run-summary.js';
import { olderFirst } from './compare-view.js';
import { diffSequence } from './diff.js';

const AGENT = `
name: pauses
nodes:
  - name: draft
    uses: return
  - name: publish
    uses: return
    interrupt: after
`;

let seq = 0;
function event(type: string, data: Record<string, unknown>, node?: string): AgentEvent {
  seq++;
  return {
    type,
    run_id: 'r',
    seq,
    ts: new Date(Date.UTC(2026, 0, 1) + seq * 10).toISOString(),
    ...(node ? { node } : {}),
    data,
  } as AgentEvent;
}

describe('pauses set on the graph', () => {
  it('adds them to a copy of the agent, keeping the pauses of the file', () => {
    const agent = loadAgent(AGENT, { file: 'pauses.yaml' });
    const paused = withPauses(agent, { before: ['draft'], after: [] });
    expect(paused).not.toBe(agent);
    expect(paused.nodes.get('draft')).toMatchObject({ interruptBefore: true, interruptAfter: false });
    expect(paused.nodes.get('publish')).toMatchObject({ interruptBefore: false, interruptAfter: true });
    // The loaded agent is unchanged; no pauses, the same agent.
    expect(agent.nodes.get('draft')?.interruptBefore).toBe(false);
    expect(withPauses(agent, { before: [], after: [] })).toBe(agent);
    expect(withPauses(agent, undefined)).toBe(agent);
  });

  it('refuses a node the agent does not have, naming the nearest', () => {
    const agent = loadAgent(AGENT, { file: 'pauses.yaml' });
    expect(() => withPauses(agent, { before: [], after: ['publsh'] })).toThrow(
      expect.objectContaining({ code: 'INVALID_PARAMS', message: expect.stringContaining('did you mean `publish`?') }),
    );
  });
});

describe('the summary of a paused run', () => {
  it('says where it waits until it goes on, and matches each answer to its waiting call', () => {
    const events = [
      event('run_start', { agent: 'a', input: {} }),
      event('node_start', {}, 'draft'),
      event('llm_request', { model: 'm', kind: 'chat' }, 'draft'),
      event('llm_request', { model: 'm', kind: 'chat', label: 'judge' }, 'draft'),
      event('llm_response', { model: 'm', duration_ms: 5, attempts: 1, label: 'judge' }, 'draft'),
      event('node_end', { update: {} }, 'draft'),
      event(
        'interrupt',
        {
          checkpoint_id: 'c',
          node: 'publish',
          position: 'before',
          pending: { kind: 'interrupt', node: 'publish', position: 'before' },
        },
        'publish',
      ),
      event('done', { status: 'interrupted', stop_reason: 'interrupt_before', state: { a: 1 } }),
    ];
    const paused = summarize(events);
    expect(paused.pause).toEqual({ node: 'publish', position: 'before' });
    // The judge's answer closed the judge's call; the unlabelled one stopped with the run.
    expect(paused.calls.map((call) => [call.label, call.state])).toEqual([
      [undefined, 'stopped'],
      ['judge', 'answered'],
    ]);
    expect(paused.waiting).toEqual([]);
    const resumed = summarize([...events, event('node_start', {}, 'publish')]);
    expect(resumed.pause).toBeUndefined();
  });
});

describe('compare', () => {
  it('makes the older run A whichever came first', () => {
    const older = {
      record: {
        run_id: 'o',
        agent: 'a',
        status: 'completed' as const,
        created_at: '2026-01-01T00:00:00Z',
        updated_at: '2026-01-01T00:00:01Z',
      },
    };
    const newer = { record: { ...older.record, run_id: 'n', created_at: '2026-01-02T00:00:00Z' } };
    expect(olderFirst(newer, older).map((run) => run.record.run_id)).toEqual(['o', 'n']);
    expect(olderFirst(older, newer).map((run) => run.record.run_id)).toEqual(['o', 'n']);
  });

  it('aligns two runs of steps by name in order', () => {
    expect(
      diffSequence(['draft', 'check', 'draft', 'check', 'publish'], ['draft', 'check', 'publish']).map(
        (line) => `${line.kind} ${line.text}`,
      ),
    ).toEqual(['same draft', 'same check', 'removed draft', 'removed check', 'same publish']);
  });
});
