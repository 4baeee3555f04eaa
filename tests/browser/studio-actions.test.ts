// The studio's view per action (issue 15, point 4) in headless Chromium, on the bundled examples
// with the scripted demo model: reflection candidates side by side with the diff between them,
// chain-of-thought thinking and answer, self-correct rounds with what changed, the decompose
// tree with each answer, and the streaming example's tokens arriving.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumAvailable } from './support/chromium.js';
import { openDemo, runAgentInPage, screenshot, startRun, waitForEnd } from './support/demo-page.js';
import { useDemoSuite } from './support/demo-suite.js';

async function runExample(page: Page, file: string): Promise<void> {
  await page.selectOption('#example-select', file);
  await page.waitForSelector('body[data-views="ready"]', { state: 'attached' });
  expect(await runAgentInPage(page)).toBe('completed');
}

describe.skipIf(!chromiumAvailable())('studio action views (Chromium)', () => {
  const suite = useDemoSuite();

  it('reflection: candidates side by side, the second as a diff of the first', async () => {
    const { context, page } = await openDemo(suite.browser, suite.server.url);
    await runExample(page, 'reflection-json-schema.yaml');
    const candidates = page.locator('#reflection-candidates .candidate');
    expect(await candidates.count()).toBe(2);
    expect(await candidates.nth(0).getAttribute('class')).toContain('invalid');
    expect(await candidates.nth(1).getAttribute('class')).toContain(' valid');
    // The corrector added the missing email: one added line, nothing removed.
    const second = candidates.nth(1);
    expect(await second.locator('.diff-line.added').count()).toBeGreaterThanOrEqual(1);
    expect(await second.locator('.diff-line.added').first().textContent()).toContain('email');
    expect(await second.locator('.diff-line.removed').count()).toBe(0);
    await page
      .locator('section.action-view')
      .first()
      .screenshot({ path: `${(await import('./support/demo-page.js')).SCREENSHOTS}/studio-reflection-diff.png` });
    await context.close();
  });

  it('chain of thought, self-correct rounds and the decompose tree', async () => {
    const { context, page } = await openDemo(suite.browser, suite.server.url);
    await runExample(page, 'reason-cot-math.yaml');
    expect(await page.textContent('#cot-view .cot-thinking')).toContain('0.15 x 240');
    expect(await page.textContent('#cot-view .cot-answer')).toBe('36');
    await screenshot(page, 'studio-cot');

    await runExample(page, 'reason-self-correct.yaml');
    const rounds = page.locator('#self-correct-rounds .round');
    expect(await rounds.count()).toBe(3);
    expect(await rounds.nth(1).locator('ins').allTextContents()).toEqual(expect.arrayContaining(['made']));
    expect(await rounds.nth(1).textContent()).toContain('too short');
    await screenshot(page, 'studio-self-correct');

    await runExample(page, 'reason-decompose.yaml');
    const items = page.locator('#decompose-tree .tree-item');
    expect(await items.count()).toBe(3);
    expect(await items.nth(2).textContent()).toContain('uses #1, #2');
    expect(await items.nth(2).textContent()).toContain('4 hours');
    // The sub-problem that needs the other two is drawn under them.
    expect(await items.nth(2).evaluate((item) => parseFloat(getComputedStyle(item).marginLeft))).toBeGreaterThan(0);
    expect(await page.textContent('#decompose-final')).toContain('4 hours');
    await screenshot(page, 'studio-decompose');
    await context.close();
  });

  it('the streaming example shows its tokens while they arrive', async () => {
    const { context, page } = await openDemo(suite.browser, suite.server.url);
    await page.selectOption('#example-select', 'stream-story.yaml');
    await startRun(page);
    await page.waitForSelector('#stream-text');
    expect(await waitForEnd(page)).toBe('completed');
    expect(await page.textContent('#stream-text')).toContain('orchids and toast');
    const chunks = await page.locator('#event-list li', { hasText: 'answer_chunk' }).count();
    expect(chunks).toBeGreaterThan(10);
    await screenshot(page, 'studio-stream');
    await context.close();
  });
});
