// Studio time travel (issue 15, point 3) in headless Chromium, in the tab: after a run, select a
// completed node in the timeline, edit the state after it, and start a new run from there. The
// new run skips the node (no model call), the next node sees the edited state, and the history
// links the new run to its parent.
import { describe, expect, it } from 'vitest';
import { chromiumAvailable } from './support/chromium.js';
import { fixture, openDemo, runAgentInPage, screenshot, setAgent, waitForEnd } from './support/demo-page.js';
import { useDemoSuite } from './support/demo-suite.js';

describe.skipIf(!chromiumAvailable())('studio time travel (Chromium)', () => {
  const suite = useDemoSuite();

  it('runs from a completed node with an edited state, linked to its parent', { timeout: 60_000 }, async () => {
    const { context, page } = await openDemo(suite.browser, suite.server.url);
    await setAgent(page, await fixture('two-steps.yaml'));
    expect(await runAgentInPage(page)).toBe('completed');
    expect(await page.textContent('#final-state')).toContain('Today: Darjeeling');
    const parent = await page.getAttribute('#run-status', 'data-run-id');

    await page.locator('#timeline .tl-item[data-kind="node"]', { hasText: 'pick' }).click();
    await page.click('#run-from-here');
    const edited = (await page.inputValue('#run-from-state')).replace('"Darjeeling"', '"Gyokuro"');
    expect(edited).toContain('Gyokuro');
    // A state that is not JSON is refused on the spot.
    await page.fill('#run-from-state', '{ not json');
    await page.click('#run-from-start');
    expect(await page.textContent('#run-from-error')).toContain('Not valid JSON');
    await page.fill('#run-from-state', edited);
    await screenshot(page, 'studio-run-from-here');
    await page.click('#run-from-start');
    await page.waitForFunction(
      (previous) => document.querySelector('#run-status')?.getAttribute('data-run-id') !== previous,
      parent,
    );
    expect(await waitForEnd(page)).toBe('completed');
    expect(await page.textContent('#final-state')).toContain('Today: Gyokuro');
    // The node it continued after did not run again: no model call in the new run.
    expect(await page.textContent('#run-status')).toContain('0 model calls');
    expect(await page.textContent('#run-status')).toContain('from node pick');
    const child = await page.getAttribute('#run-status', 'data-run-id');
    const row = page.locator(`#history-list .history-row[data-run-id="${child}"]`);
    await row.waitFor();
    expect(await row.locator('.history-parent').textContent()).toContain(parent!.slice(0, 8));
    await screenshot(page, 'studio-time-travel');
    await context.close();
  });
});
