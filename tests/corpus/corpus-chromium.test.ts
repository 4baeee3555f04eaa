import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, runInChromiumPage } from '../support/chromium-page.js';
import { readCorpus } from './corpus-cases.js';
import { bundleCorpus } from './corpus-bundle.js';
import type { CorpusOutcome } from './corpus-runner.js';
import { expectOutcome } from './expect-outcome.js';

const available = existsSync(CHROMIUM);
if (!available && process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run must install Debian's chromium`);

describe.skipIf(!available)('agent corpus in headless Chromium (bundled engine in a page)', () => {
  let outcomes: CorpusOutcome[];

  beforeAll(async () => {
    const { value, errors } = await runInChromiumPage(await bundleCorpus('page'), '__corpus');
    expect(errors).toEqual([]);
    if (!Array.isArray(value)) throw new Error(`corpus failed in the page: ${JSON.stringify(value)}`);
    outcomes = value as CorpusOutcome[];
  });

  for (const corpusCase of readCorpus()) {
    it(corpusCase.name, () => {
      const outcome = outcomes.find((entry) => entry.name === corpusCase.name);
      expect(outcome).toBeDefined();
      expectOutcome(outcome!, corpusCase.expected);
    });
  }
});
