import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCorpus } from './corpus-cases.js';
import { bundleCorpus } from './corpus-bundle.js';
import type { CorpusOutcome } from './corpus-runner.js';
import { expectOutcome } from './expect-outcome.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run must install Debian's chromium`);

describe.skipIf(!available)('agent corpus in headless Chromium (bundled engine in a page)', () => {
  let browser: Browser;
  let server: Server;
  let outcomes: CorpusOutcome[];

  beforeAll(async () => {
    const script = await bundleCorpus('page');
    server = createServer((request, response) => {
      if (request.url === '/corpus.js') {
        response.writeHead(200, { 'content-type': 'text/javascript' });
        response.end(script);
      } else {
        response.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "script-src 'self'" });
        response.end('<!doctype html><title>corpus</title><script type="module" src="/corpus.js"></script>');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.waitForFunction(() => (globalThis as { __corpus?: unknown }).__corpus !== undefined, undefined, { timeout: 60_000 });
    const value = await page.evaluate(() => (globalThis as { __corpus?: unknown }).__corpus);
    expect(errors).toEqual([]);
    if (!Array.isArray(value)) throw new Error(`corpus failed in the page: ${JSON.stringify(value)}`);
    outcomes = value as CorpusOutcome[];
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  for (const corpusCase of readCorpus()) {
    it(corpusCase.name, () => {
      const outcome = outcomes.find((entry) => entry.name === corpusCase.name);
      expect(outcome).toBeDefined();
      expectOutcome(outcome!, corpusCase.expected);
    });
  }
});
