/** web.scrape and web.search through real agents against a local web site on 127.0.0.1. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadError, runYaml } from '../engine/helpers.js';
import { startWebFixture, type WebFixture } from '../support/web-fixture-server.js';
import { closedPort } from '../support/closed-port.js';

let site: WebFixture;
let keyed: WebFixture;
beforeAll(async () => {
  site = await startWebFixture();
  keyed = await startWebFixture({ searchKey: 'searx-secret-9876' });
});
afterAll(async () => {
  await site.close();
  await keyed.close();
});
beforeEach(() => {
  site.requests.length = 0;
  keyed.requests.length = 0;
});

const scrapeAgent = (withYaml: string, allow = site.origin) => `
settings:
  http: { allow: ["${allow}"] }
nodes:
  - name: scrape
    uses: web.scrape
    with: ${withYaml}
    output: page
`;

describe('web.scrape', () => {
  it('a site that cannot be reached fails the node naming the URL and the cause', async () => {
    const down = `http://127.0.0.1:${await closedPort()}`;
    const { result } = await runYaml(scrapeAgent(`{ url: "${down}/page.html" }`, down));
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({
      code: 'ACTION_FAILED',
      node: 'scrape',
      field: 'url',
      details: { url: `${down}/page.html` },
    });
    expect(result.error!.message).toMatch(
      new RegExp(
        `^web\\.scrape could not fetch ${down.replace(/\./g, '\\.')}/page\\.html: fetch failed: connect ECONNREFUSED`,
      ),
    );
  });

  it('returns Markdown, links and metadata of an allowed page', async () => {
    const { result } = await runYaml(scrapeAgent('{ url: "{{ state.url }}", formats: [markdown, links] }'), {
      url: `${site.origin}/article.html`,
    });
    expect(result.status).toBe('completed');
    const page = result.state.page as Record<string, any>;
    expect(page).toMatchObject({ success: true, status: 200, url: `${site.origin}/article.html` });
    expect(page.markdown).toMatch(/^# Edge agents\n\nAgents that run \*\*close to users\*\*/);
    expect(page.markdown).not.toContain('Buy now');
    expect(page.links).toEqual([`${site.origin}/docs/intro?x=1`]);
    expect(page.metadata).toEqual({
      title: 'Edge agents & you',
      description: 'Why small agents run well at the edge.',
      content_type: 'text/html; charset=utf-8',
      truncated: false,
    });
    expect(page.text).toBeUndefined();
  });

  it('formats: [text] gives plain text; max_chars caps it', async () => {
    const { result } = await runYaml(
      scrapeAgent(`{ url: "${site.origin}/article.html", formats: [text], max_chars: 100 }`),
    );
    const page = result.state.page as Record<string, any>;
    expect(page.text.length).toBeLessThanOrEqual(100);
    expect(page.text).not.toContain('**');
    expect(page.metadata.truncated).toBe(true);
    expect(page.markdown).toBeUndefined();
  });

  it('a page past settings.http.max_bytes is cut and marked truncated', async () => {
    const { result } = await runYaml(scrapeAgent(`{ url: "${site.origin}/big.html" }`));
    const page = result.state.page as Record<string, any>;
    expect(page.success).toBe(true);
    expect(page.metadata.truncated).toBe(true);
    expect(page.markdown.length).toBeLessThanOrEqual(20_000);
  });

  it('text/plain is returned as it is; a binary type and a 404 are success: false with a reason', async () => {
    const plain = await runYaml(scrapeAgent(`{ url: "${site.origin}/plain.txt" }`));
    expect((plain.result.state.page as Record<string, unknown>).markdown).toBe('Just text.\nTwo lines.');
    const binary = await runYaml(scrapeAgent(`{ url: "${site.origin}/data.bin" }`));
    expect(binary.result.state.page).toMatchObject({
      success: false,
      error: expect.stringContaining('application/octet-stream'),
    });
    const missing = await runYaml(scrapeAgent(`{ url: "${site.origin}/missing" }`));
    expect(missing.result.state.page).toMatchObject({ success: false, status: 404 });
  });

  it('the http.get policy applies: an unlisted origin and a private address are FORBIDDEN, with no request made', async () => {
    const unlisted = await runYaml(scrapeAgent(`{ url: "${site.origin}/article.html" }`, 'https://example.org'));
    expect(unlisted.result.error?.code).toBe('FORBIDDEN');
    expect(unlisted.result.error?.message).toContain('web.scrape denied');
    expect(unlisted.result.error?.message).toContain('private or loopback');
    const other = await runYaml(scrapeAgent('{ url: "http://169.254.169.254/latest/meta-data" }'));
    expect(other.result.error?.code).toBe('FORBIDDEN');
    expect(site.requests).toHaveLength(0);
  });

  it('a redirect to an origin that is not allowed is refused', async () => {
    const { result } = await runYaml(scrapeAgent(`{ url: "${site.origin}/redirect?to=http://127.0.0.2:1/x" }`));
    expect(result.error?.code).toBe('FORBIDDEN');
    expect(site.requests).toHaveLength(1);
  });

  it('unknown keys and bad formats are INVALID_PARAMS', async () => {
    expect(
      loadError(`nodes:\n  - { name: s, uses: web.scrape, with: { url: "${site.origin}/", selector: main } }\n`).code,
    ).toBe('INVALID_PARAMS');
    const { result } = await runYaml(scrapeAgent(`{ url: "${site.origin}/article.html", formats: [screenshot] }`));
    expect(result.error?.code).toBe('INVALID_PARAMS');
  });

  it('a network failure is ACTION_FAILED', async () => {
    const { result } = await runYaml(scrapeAgent('{ url: "http://127.0.0.1:9/x" }', 'http://127.0.0.1:9'));
    expect(result.error?.code).toBe('ACTION_FAILED');
  });
});

const searchAgent = (fixture: WebFixture, extra = '', withYaml = '{ query: "{{ state.q }}", num_results: 2 }') => `
settings:
  http: { allow: ["${fixture.origin}"] }
  web_search: { provider: searxng, url: "${fixture.origin}"${extra} }
nodes:
  - name: search
    uses: web.search
    with: ${withYaml}
    output: found
`;

describe('web.search (SearXNG JSON API)', () => {
  it('asks /search?format=json and returns {results, total_results, answer}', async () => {
    const { result } = await runYaml(searchAgent(site), { q: 'edge agents' });
    expect(result.status).toBe('completed');
    expect(result.state.found).toEqual({
      success: true,
      query: 'edge agents',
      results: [
        { title: 'Edge agents explained', url: 'https://example.org/a', content: 'A guide to agents at the edge.' },
        { title: 'TEA', url: 'https://example.org/b', content: 'The Edge Agent.' },
      ],
      total_results: 1234,
      answer: 'Agents that run near users.',
    });
    expect(site.requests[0]!.path).toBe('/search?q=edge+agents&format=json');
    expect(site.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('sends the key from the host secrets as a bearer token; it never shows in state or events', async () => {
    const { result, events } = await runYaml(
      searchAgent(keyed, ', api_key_secret: SEARX_KEY'),
      { q: 'x' },
      { secrets: { SEARX_KEY: 'searx-secret-9876' } },
    );
    expect(result.status).toBe('completed');
    expect(keyed.requests[0]!.headers.authorization).toBe('Bearer searx-secret-9876');
    expect(JSON.stringify({ state: result.state, events })).not.toContain('searx-secret-9876');
  });

  it('a missing secret is ACTION_FAILED naming it, before any request', async () => {
    const { result } = await runYaml(searchAgent(keyed, ', api_key_secret: SEARX_KEY'), { q: 'x' });
    expect(result.error?.code).toBe('ACTION_FAILED');
    expect(result.error?.message).toContain("'SEARX_KEY'");
    expect(keyed.requests).toHaveLength(0);
  });

  it('a wrong key is success: false with the status', async () => {
    const { result } = await runYaml(
      searchAgent(keyed, ', api_key_secret: SEARX_KEY'),
      { q: 'x' },
      { secrets: { SEARX_KEY: 'wrong' } },
    );
    expect(result.state.found).toMatchObject({ success: false, error: expect.stringContaining('401') });
  });

  it('the provider origin must be allowed like any other', async () => {
    const yaml = searchAgent(site).replace(`allow: ["${site.origin}"]`, 'allow: []');
    const { result } = await runYaml(yaml, { q: 'x' });
    expect(result.error?.code).toBe('FORBIDDEN');
  });

  it('no settings.web_search, or another provider, is a load error that says what to write', () => {
    const missing = loadError('nodes:\n  - { name: s, uses: web.search, with: { query: x } }\n');
    expect(missing.code).toBe('INVALID_PARAMS');
    expect(missing.message).toContain('settings.web_search');
    const paid = loadError(
      'settings:\n  web_search: { provider: perplexity, url: "https://api.perplexity.ai" }\nnodes:\n  - { name: s, uses: web.search, with: { query: x } }\n',
    );
    expect(paid.message).toContain('searxng');
  });

  it('num_results out of range and unknown keys are INVALID_PARAMS', async () => {
    expect(loadError(searchAgent(site, '', '{ query: x, num_results: 500 }')).code).toBe('INVALID_PARAMS');
    expect(loadError(searchAgent(site, '', '{ query: x, engine: google }')).message).toContain('engine');
    // A computed value is checked when the node runs.
    const { result } = await runYaml(searchAgent(site, '', '{ query: x, num_results: "{{ 500 }}" }'));
    expect(result.error?.code).toBe('INVALID_PARAMS');
    expect(site.requests).toHaveLength(0);
  });
});
