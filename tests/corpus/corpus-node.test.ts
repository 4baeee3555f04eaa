import { describe, expect, it } from 'vitest';
import { loadAgent, runAgent } from '../../src/index.js';
import { readCorpus } from './corpus-cases.js';
import { runCorpus } from './corpus-runner.js';
import { expectOutcome } from './expect-outcome.js';

describe('agent corpus in Node', () => {
  const corpus = readCorpus();
  it('has cases', () => expect(corpus.length).toBeGreaterThanOrEqual(8));
  for (const corpusCase of corpus) {
    it(corpusCase.name, async () => {
      const [outcome] = await runCorpus({ loadAgent, runAgent }, [corpusCase]);
      expectOutcome(outcome!, corpusCase.expected);
    });
  }
});
