// Every model call readable, and the reflection judge shown (issue 27, points 6 and 7), in
// headless Chromium at 1280 and 375 px: a reflection loop with an LLM judge on the scripted model,
// whose writer thinks aloud. Each call is labelled by its purpose (generator / judge and the
// attempt); a call opens as a chat with the answer and, folded beside it, the reasoning; the
// reflection is one section with each attempt's verdict, score, feedback and suggestions and a
// word diff between the candidates.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumAvailable } from './support/chromium.js';
import {
  fixture,
  openDemo,
  runAgentInPage,
  screenshot,
  SCREENSHOTS,
  setAgent,
  WIDE_AND_NARROW,
} from './support/demo-page.js';
import { useDemoSuite } from './support/demo-suite.js';
import { seriousViolations } from './support/axe.js';

async function shot(page: Page, name: string, part: string): Promise<void> {
  await page.locator(part).first().scrollIntoViewIfNeeded();
  if ((page.viewportSize()?.width ?? 1280) >= 1000) {
    await page
      .locator(part)
      .first()
      .screenshot({ path: `${SCREENSHOTS}/${name}-part.png` });
    return screenshot(page, name, false);
  }
  await page
    .locator(part)
    .first()
    .screenshot({ path: `${SCREENSHOTS}/${name}.png` });
}

describe.skipIf(!chromiumAvailable())('studio: model calls and the reflection judge (Chromium)', () => {
  const suite = useDemoSuite();

  it.each(WIDE_AND_NARROW)(
    'labels each call, opens it as a chat with the reasoning apart, and shows the judge per attempt (%s)',
    async (name, viewport) => {
      const { context, page } = await openDemo(suite.browser, suite.server.url, { preset: 'scripted' }, viewport);
      await setAgent(page, await fixture('reflection-think.yaml'));
      expect(await runAgentInPage(page)).toBe('completed');
      await page.waitForSelector('#timeline .tl-item[data-kind="model"]');
      const labels = await page.$$eval('#timeline .tl-item[data-kind="model"] .tl-label', (items) =>
        items.map((item) => item.textContent?.trim()),
      );
      expect(labels).toEqual([
        'model generator (attempt 1) · scripted',
        'model judge (attempt 1) · scripted',
        'model generator (attempt 2) · scripted',
        'model judge (attempt 2) · scripted',
      ]);

      // The writer's first call: the prompt as a user message, the answer without its thinking,
      // the thinking folded apart.
      await page.locator('#timeline .tl-item[data-kind="model"]').first().click();
      expect(await page.textContent('#model-call-figures')).toMatch(
        /^For: generator \(attempt 1\) · model scripted · took \d+ ms · 65 characters of reasoning$/,
      );
      expect(await page.textContent('#model-call-messages .role-user')).toContain(
        'Write a one-line blurb for our green tea',
      );
      expect(await page.textContent('#model-call-answer')).toBe(
        'A bright, grassy green tea from the misty hills of Shizuoka.',
      );
      expect(await page.getAttribute('#model-call-reasoning', 'open')).toBeNull();
      await page.click('#model-call-reasoning > summary');
      expect(await page.textContent('#model-call-reasoning pre')).toBe(
        'The buyer wants something short. I will describe the taste first.',
      );
      await shot(page, `studio-model-call-${name}`, '#timeline-detail');
      expect(await seriousViolations(page)).toEqual([]);

      // The judge's call: its system prompt and the candidate it judged.
      await page.locator('#timeline .tl-item[data-kind="model"]').nth(1).click();
      expect(await page.textContent('#model-call-figures')).toContain('For: judge (attempt 1)');
      expect(await page.locator('#model-call-messages .role-system').count()).toBe(1);
      expect(await page.textContent('#model-call-messages')).toContain('misty hills of Shizuoka');
      expect(await page.textContent('#model-call-answer')).toContain('"valid": false');

      // The reflection: one section (no separate live list once the node ended), the judge per attempt.
      expect(await page.locator('#attempts').count()).toBe(0);
      const attempts = page.locator('#reflection-candidates .candidate');
      expect(await attempts.count()).toBe(2);
      const first = attempts.nth(0);
      expect(await first.locator('.verdict').textContent()).toBe('Judge: failed score 0.40');
      expect(await first.locator('.judge-feedback').textContent()).toBe('Feedback: The price is missing.');
      expect(await first.locator('.judge-suggestions li').allTextContents()).toEqual([
        'Mention the $12 price',
        'Keep it under 20 words',
      ]);
      // Said once: the reason is the feedback, not also an error.
      expect(await first.locator('.errors').count()).toBe(0);
      const second = attempts.nth(1);
      expect(await second.locator('.verdict').textContent()).toBe('Judge: passed score 0.90');
      // A word diff: the words that changed, not the whole line.
      expect((await second.locator('ins.diff-line.added').allTextContents()).join('')).toContain('$12.');
      expect((await second.locator('del.diff-line.removed').allTextContents()).join('')).toContain('misty');
      expect(await second.locator('.inline-diff').textContent()).toContain('grassy green tea from');
      await shot(page, `studio-reflection-judge-${name}`, 'section.action-view');
      expect(await seriousViolations(page)).toEqual([]);
      await context.close();
    },
  );
});
