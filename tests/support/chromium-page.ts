/**
 * Runs a bundled script in headless Chromium (`/usr/bin/chromium`, via playwright-core): a page
 * served from 127.0.0.1 with a strict CSP (`script-src 'self'`, so no code generation) loads it as
 * a module, and the value the script leaves in `globalThis[resultName]` comes back.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** The script's result global, and the page errors seen while waiting for it. */
export async function runInChromiumPage(
  script: string,
  resultName: string,
  timeoutMs = 60_000,
): Promise<{ value: unknown; errors: string[] }> {
  const server = createServer((request, response) => {
    if (request.url === '/script.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' });
      response.end(script);
    } else {
      response.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "script-src 'self'" });
      response.end('<!doctype html><title>test</title><script type="module" src="/script.js"></script>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.waitForFunction((name) => (globalThis as Record<string, unknown>)[name] !== undefined, resultName, {
      timeout: timeoutMs,
    });
    return { value: await page.evaluate((name) => (globalThis as Record<string, unknown>)[name], resultName), errors };
  } finally {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
  }
}
