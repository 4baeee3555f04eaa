import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCorpus } from './corpus-cases.js';
import { bundleCorpus } from './corpus-bundle.js';
import type { CorpusOutcome } from './corpus-runner.js';
import { expectOutcome } from './expect-outcome.js';

describe('agent corpus inside workerd (Miniflare, bundled engine)', () => {
  let miniflare: Miniflare;
  let outcomes: CorpusOutcome[];

  beforeAll(async () => {
    const script = await bundleCorpus('worker');
    expect(script).not.toMatch(/\beval\(|new Function\(/);
    miniflare = new Miniflare({ modules: true, script, compatibilityDate: '2026-05-01' });
    const response = await miniflare.dispatchFetch('http://corpus.test/');
    const body = await response.text();
    expect(response.status, body.slice(0, 500)).toBe(200);
    outcomes = JSON.parse(body);
  });
  afterAll(async () => {
    await miniflare?.dispose();
  });

  for (const corpusCase of readCorpus()) {
    it(corpusCase.name, () => {
      const outcome = outcomes.find((entry) => entry.name === corpusCase.name);
      expect(outcome).toBeDefined();
      expectOutcome(outcome!, corpusCase.expected);
    });
  }
});
