/**
 * The seam scenarios (seam-scenarios.ts) on Node, over a rooted folder: what the other hosts'
 * tests compare against, checked here on their own terms.
 */
import { describe, expect, it } from 'vitest';
import { HOSTILE_PATHS } from './seam-scenarios.js';
import { nodeOutcomes } from './seam-node-outcomes.js';

describe('seam scenarios on Node', () => {
  it('give the expected outcomes', async () => {
    const outcomes = await nodeOutcomes();
    const byName = new Map(outcomes.map((outcome) => [outcome.name, outcome]));
    const team = byName.get('tea-agent-files.yaml')!;
    expect(team.status, JSON.stringify(team)).toBe('completed');
    expect(team.state).toMatchObject({ category: 'billing', verdict: 'approve' });
    expect(team.sub_runs).toEqual(['tea-agent-files-triage.yaml', 'tea-agent-files-check.yaml']);
    const notes = byName.get('tea-file-notes.yaml')!;
    expect(notes.status).toBe('completed');
    expect(notes.state.summary_on_store).toBe('Oolong is a partly oxidised tea between green and black.');
    expect(byName.get('cycle')!.error).toBe('INVALID_AGENT');
    expect(byName.get('missing file')!.error).toBe('NOT_FOUND');
    expect(byName.get('write big')!.status).toBe('completed');
    expect(byName.get('read over max_bytes')!.error).toBe('INPUT_TOO_LARGE');
    for (const hostile of HOSTILE_PATHS) {
      expect(byName.get(`read ${JSON.stringify(hostile)}`)!.error, hostile).toBe('INVALID_PARAMS');
      expect(byName.get(`write ${JSON.stringify(hostile)}`)!.error, hostile).toBe('INVALID_PARAMS');
    }
  });
});
