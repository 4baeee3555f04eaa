// Issue 27, point 13, in headless Chromium: a history row says how long the run took, its tokens
// and model, and its status once; the example picked last comes back after a reload (over an older
// draft); an offline chip while the browser is offline; at 375 px, jump links reach each section.
// Screens at 1280 and 375 px.
import { describe, expect, it } from 'vitest';
import { chromiumAvailable } from './support/chromium.js';
import {
  fixture,
  openDemo,
  runAgentInPage,
  screenshot,
  setAgent,
  waitReady,
  WIDE_AND_NARROW,
} from './support/demo-page.js';
import { useDemoSuite } from './support/demo-suite.js';
import { seriousViolations } from './support/axe.js';

describe.skipIf(!chromiumAvailable())('studio: history rows, the remembered example, offline (Chromium)', () => {
  const suite = useDemoSuite();

  it.each(WIDE_AND_NARROW)(
    'says the duration and the status once, remembers the example, shows offline (%s)',
    async (name, viewport) => {
      const { context, page } = await openDemo(suite.browser, suite.server.url, { preset: 'scripted' }, viewport);
      // An older draft of another agent.
      await setAgent(page, (await fixture('scripted-hello.yaml')).replace('Say hello.', 'Say hello twice.'));
      await page.waitForSelector('#discard-draft');
      expect(await runAgentInPage(page)).toBe('completed');
      await page.waitForSelector('#history-list .history-row');
      const row = await page.textContent('#history-list .history-row .history-label');
      expect(row).toMatch(/ · \d+(\.\d)? m?s · \d+ tok · scripted$/);
      expect(row).not.toContain('completed');
      expect(await page.textContent('#history-list .history-row .badge')).toBe('completed');

      // Pick an example, reload: it is back (not the older draft).
      await page.selectOption('#example-select', 'stream-story.yaml');
      await page.waitForFunction(() =>
        (document.querySelector('.cm-content')?.textContent ?? '').includes('name: stream-story'),
      );
      await page.reload();
      await waitReady(page);
      await page.waitForFunction(() =>
        (document.querySelector('.cm-content')?.textContent ?? '').includes('name: stream-story'),
      );
      expect(await page.inputValue('#example-select')).toBe('stream-story.yaml');

      expect(await page.isVisible('#offline-chip')).toBe(false);
      await context.setOffline(true);
      await page.waitForSelector('#offline-chip', { state: 'visible' });
      expect(await page.textContent('#offline-chip')).toBe('Offline: runs in this tab still work');
      expect(await seriousViolations(page)).toEqual([]);
      await page.evaluate(() => window.scrollTo(0, 0));
      await screenshot(page, `studio-offline-${name}`, false);
      await context.setOffline(false);
      await page.waitForSelector('#offline-chip', { state: 'hidden' });

      // Jump links: shown where the sections stack; each one brings its section's heading into view
      // below the links (the page is far taller than the screen: each section is out of view first).
      expect(await page.isVisible('#jump-links')).toBe(name === 'narrow');
      if (name === 'narrow') {
        for (const [link, heading] of [
          ['History', '#history-heading'],
          ['Model', '#settings-heading'],
          ['Run', '#run-heading'],
          ['Agent', '#agent-heading'],
        ] as const) {
          await page.click(`#jump-links a:text-is("${link}")`);
          await page.waitForFunction((selector) => {
            const top = document.querySelector(selector)!.getBoundingClientRect().top;
            return top >= 40 && top < innerHeight - 40;
          }, heading);
          // The links stay in view wherever the page is.
          expect((await page.locator('#jump-links').boundingBox())!.y).toBeLessThanOrEqual(1);
        }
        await page.click('#jump-links a:text-is("History")');
        await page.waitForTimeout(300);
        await screenshot(page, 'studio-jump-links-narrow', false);
      }
      await context.close();
    },
    120_000,
  );
});
