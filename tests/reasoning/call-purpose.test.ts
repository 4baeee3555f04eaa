// Each model call says what it is for within its action (`purpose` on llm_request): the studio
// labels calls with it instead of repeating the action's name (issue 27, point 6).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runYaml } from '../engine/helpers.js';

const example = (name: string) =>
  readFileSync(path.resolve(import.meta.dirname, '../../examples', `${name}.yaml`), 'utf8');

async function purposes(name: string): Promise<unknown[]> {
  const { result, events } = await runYaml(example(name));
  expect(result.status, JSON.stringify(result.error)).toBe('completed');
  return events.filter((event) => event.type === 'llm_request').map((event) => event.data.purpose);
}

describe('llm_request purpose', () => {
  it('ReAct: one step per call', async () => {
    expect(await purposes('reason-react-tools')).toEqual([
      'ReAct step 1',
      'ReAct step 2',
      'ReAct step 3',
      'ReAct step 4',
      'ReAct step 5',
    ]);
  });
  it('decompose: the plan, each sub-problem, the synthesis', async () => {
    const listed = await purposes('reason-decompose');
    expect(listed[0]).toBe('plan');
    expect(listed.at(-1)).toBe('synthesis');
    expect(
      listed.slice(1, -1).every((purpose) => typeof purpose === 'string' && purpose.startsWith('sub-problem ')),
    ).toBe(true);
  });
  it('self-correct and chain of thought', async () => {
    expect(await purposes('reason-self-correct')).toEqual([
      'generator',
      'critic and corrector (round 1)',
      'critic and corrector (round 2)',
    ]);
    expect(await purposes('reason-cot-math')).toEqual(['chain of thought']);
  });
  it('reflection: the judge of each attempt', async () => {
    const listed = await purposes('reflection-judge');
    expect(listed.filter((purpose) => typeof purpose === 'string' && purpose.startsWith('judge'))).toEqual(
      expect.arrayContaining(['judge (attempt 1)']),
    );
  });
});
