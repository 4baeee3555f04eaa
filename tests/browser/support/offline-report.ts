/**
 * Opens a saved HTML report from disk in a context with the network off, every request recorded
 * and any http(s) one refused, and the page's Content Security Policy violations collected.
 */
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';

export interface OfflineReport {
  context: BrowserContext;
  page: Page;
  url: string;
  /** Every request the page made (the file itself first). */
  requests: string[];
  violations(): Promise<string[]>;
}

export async function openReportOffline(
  browser: Browser,
  file: string,
  viewport = { width: 1280, height: 900 },
): Promise<OfflineReport> {
  const context = await browser.newContext({ offline: true, acceptDownloads: true, viewport });
  const requests: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  await context.route(/^https?:/, (route) => route.abort());
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  const page = await context.newPage();
  const url = pathToFileURL(file).href;
  await page.goto(url);
  await page.waitForSelector('html[data-report="ready"]');
  return {
    context,
    page,
    url,
    requests,
    violations: () => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations),
  };
}
