/**
 * The TEA-style examples for the new actions run on their scripted model. The web examples run
 * unchanged but for the allowed origin, against a local site on 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runYaml } from '../engine/helpers.js';
import { startWebFixture, type WebFixture } from '../support/web-fixture-server.js';

const example = (name: string) => readFileSync(new URL(`../../examples/${name}.yaml`, import.meta.url), 'utf8');
const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}.yaml`, import.meta.url), 'utf8');

let site: WebFixture;
beforeAll(async () => {
  site = await startWebFixture({ searchKey: 'k-123456' });
});
afterAll(() => site.close());

describe('TEA-style examples', () => {
  it('tea-web-scrape-summary: scrapes the page, summarises it, returns title and summary', async () => {
    const yaml = example('tea-web-scrape-summary').replace('https://example.com"', `${site.origin}"`);
    const { result, events } = await runYaml(yaml, { url: `${site.origin}/article.html` });
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.state).toMatchObject({ title: 'Edge agents & you', link_count: 1 });
    expect(String(result.state.summary)).toContain('close to users');
    const request = events.find((event) => event.type === 'llm_request');
    expect(request?.node).toBe('summarise');
    expect(site.requests.map((request) => request.path)).toContain('/article.html');
  });

  it('tea-web-scrape-summary as shipped refuses any origin but example.com (no request to the local site)', async () => {
    const before = site.requests.length;
    const { result } = await runYaml(example('tea-web-scrape-summary'), { url: `${site.origin}/article.html` });
    expect(result.error?.code).toBe('FORBIDDEN');
    expect(site.requests.length).toBe(before);
  });

  it('tea-llm-embed-search: ranks the documents by cosine similarity and answers from the best', async () => {
    const { result, events } = await runYaml(example('tea-llm-embed-search'));
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.state.best_document).toBe('Cloudflare Workers start in about five milliseconds at the edge.');
    expect(result.state.best_score as number).toBeGreaterThan(0);
    expect(result.state).toMatchObject({ source: result.state.best_document, dimensions: 64 });
    expect(String(result.state.answer)).toContain('five milliseconds');
    const embeddings = events.flatMap((event) =>
      event.type === 'llm_request' && event.data.kind === 'embeddings' ? [event.data] : [],
    );
    expect(embeddings).toHaveLength(1);
    expect(embeddings[0]!.input_count).toBe(4);
  });

  it('tea-llm-embed-search: another question picks another document', async () => {
    const { result } = await runYaml(example('tea-llm-embed-search'), {
      question: 'Which inline language do agents use, Lua?',
    });
    expect(result.state.best_document).toBe('Lua is the inline language of tea-edge agents.');
  });

  it('tea-retry-loop: one correction makes the record valid', async () => {
    const { result } = await runYaml(example('tea-retry-loop'));
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.state).toMatchObject({
      retries: 1,
      valid: true,
      record: { title: 'The Analytical Engine', author: 'Ada Lovelace', year: 1843 },
    });
  });

  it('tea-agent-personas: a researcher → writer chain, then three reviewers vote', async () => {
    const { result, events } = await runYaml(example('tea-agent-personas'));
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.state).toMatchObject({
      summary: 'Green tea: gentle caffeine, calm focus thanks to L-theanine.',
      verdict: 'approve',
      votes: { approve: 2, revise: 1 },
    });
    const labels = events.filter((event) => event.type === 'llm_request').map((event) => event.data.label);
    expect(labels).toEqual([
      'agent:researcher',
      'agent:writer',
      'agent:reviewer_a',
      'agent:reviewer_b',
      'agent:reviewer_c',
    ]);
  });

  it('fixtures/tea-web-search (needs a SearXNG; test fixture): search, then answer', async () => {
    const yaml = fixture('tea-web-search').replaceAll('https://searx.example.org', site.origin);
    const { result } = await runYaml(yaml, { topic: 'edge agents' }, { secrets: { SEARX_KEY: 'k-123456' } });
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.state).toMatchObject({
      answer: 'They run close to users.',
      top: 'https://example.org/a',
      total: 1234,
    });
  });
});
