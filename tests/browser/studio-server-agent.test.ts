// Studio server mode shows the agent (issue 27, point 10) in headless Chromium against a
// `tea-edge serve` of a folder where one file does not load: the server starts anyway, the studio
// lists that file greyed with its problem (file:line, code) and cannot pick it, and for the chosen
// agent it shows the file read-only with line numbers, its input_schema, and a form made from the
// schema whose problems are shown at their fields before anything is sent; the form's input runs.
// At 1280 and 375 px, axe clean.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { serve, type RunningServer } from '../../worker/node/node.js';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { openDemo, runAgentInPage, screenshot, WIDE_AND_NARROW } from './support/demo-page.js';
import { DIST, ensureBuilt, ROOT } from './support/serve-demo.js';
import { seriousViolations } from './support/axe.js';

describe.skipIf(!chromiumAvailable())(
  'studio server mode: the agent, its input form, the files that do not load (Chromium)',
  () => {
    let browser: Browser;
    let server: RunningServer;

    beforeAll(async () => {
      await ensureBuilt();
      server = await serve({
        port: 0,
        agentsDir: path.join(ROOT, 'tests/browser/fixtures/server-agents-form'),
        traceDir: mkdtempSync(path.join(tmpdir(), 'tea-studio-agent-')),
        webDemoDir: DIST,
      });
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    const connected = async (page: Page) => {
      await page.waitForSelector('#server-agent-view[data-agent="plain"], #server-agent-view[data-agent="tea-brief"]');
      expect(await page.isChecked('#backend-server')).toBe(true);
    };

    for (const [width, viewport] of WIDE_AND_NARROW) {
      it(`at ${width}: lists the broken file greyed with its problem, shows the file and schema, checks the form at its fields, runs its input`, {
        timeout: 90_000,
      }, async () => {
        const { context, page } = await openDemo(
          browser,
          `${server.url}/`,
          { preset: 'scripted' },
          viewport ?? { width: 1280, height: 900 },
        );
        await connected(page);
        expect(await page.textContent('#server-status')).toContain('2 agents (and 1 file that does not load)');

        // The broken file: listed with file:line and code, and not a choice in the picker.
        const invalid = page.locator('#server-invalid-agents .invalid-agent[data-agent="broken-action"]');
        expect(await invalid.textContent()).toMatch(/broken-action\.yaml:5:\d+ UNKNOWN_ACTION .*llm\.call/);
        expect(await page.locator('#server-agent option[value="broken-action"]').isDisabled()).toBe(true);
        expect(await page.locator('#server-agent option[value="broken-action"]').textContent()).toContain(
          'does not load',
        );

        await page.selectOption('#server-agent', 'tea-brief');
        await page.waitForSelector('#server-agent-view[data-agent="tea-brief"] #input-form');
        // The file, read-only, numbered; the schema as JSON.
        const source = page.locator('#server-agent-source');
        expect(await source.textContent()).toContain('minLength: 3');
        expect(await source.locator('.file-line').count()).toBe(28);
        expect(await source.locator('.file-line').nth(1).locator('.line-number').textContent()).toBe('2');
        expect(await page.locator('#server-agent-source[contenteditable]').count()).toBe(0);
        await page.click('#server-input-schema summary');
        expect(await page.textContent('#server-input-schema pre')).toContain('"minLength": 3');

        // One field per property, of the kind its schema says.
        expect(await page.getAttribute('#input-field-tea', 'type')).toBe('text');
        expect(await page.getAttribute('#input-field-cups', 'inputmode')).toBe('numeric');
        expect(await page.locator('#input-field-style option').allTextContents()).toEqual([
          '(not set)',
          'short',
          'long',
        ]);
        expect(await page.inputValue('#input-field-style')).toBe('0'); // its default
        expect(await page.getAttribute('#input-field-iced', 'type')).toBe('checkbox');
        expect(await page.evaluate(() => document.querySelector('#input-field-notes')?.tagName)).toBe('TEXTAREA');

        // Empty: the required fields say so, and Run sends nothing.
        expect(await page.textContent('#input-field-tea-error')).toContain('required');
        expect(await page.textContent('#input-field-cups-error')).toContain('required');
        await page.click('#run-button');
        expect(await page.textContent('#input-error')).toContain('problems');
        expect(await page.getAttribute('#run-status', 'data-run-id')).toBeFalsy();

        // Wrong values: each problem at its field (the engine's schema check, and JSON syntax).
        await page.fill('#input-field-tea', 'ab');
        await page.fill('#input-field-cups', '12');
        await page.fill('#input-field-notes', '["first", ');
        expect(await page.textContent('#input-field-notes-error')).toContain('not JSON');
        await page.fill('#input-field-notes', '["first", 2]');
        await page.waitForSelector('#input-field-tea-error');
        expect(await page.textContent('#input-field-tea-error')).toMatch(/too short/i);
        expect(await page.textContent('#input-field-cups-error')).toMatch(/10/);
        expect(await page.textContent('#input-field-notes-error')).toMatch(/\/notes\/1: .*string/);
        expect(await page.getAttribute('#input-field-tea', 'aria-invalid')).toBe('true');
        expect(await seriousViolations(page)).toEqual([]);
        await page.locator('#server-agent-view').scrollIntoViewIfNeeded();
        await screenshot(page, `studio-server-agent-form-${width}`);
        // The README's picture: the agent panel with the broken file and the form's problems.
        const panel =
          width === 'wide'
            ? await page.locator('section.panel.agent').evaluate((element) => ({
                x: element.getBoundingClientRect().x + scrollX,
                y: element.getBoundingClientRect().y + scrollY,
                width: element.getBoundingClientRect().width,
                height: element.getBoundingClientRect().height,
              }))
            : null;
        if (panel)
          await page.screenshot({
            path: path.join(ROOT, 'test-artifacts/screenshots/studio-server-agent-panel.png'),
            fullPage: true,
            clip: { ...panel, height: Math.min(panel.height, 1080) },
          });

        // Right values: the input written below is what runs on the server.
        await page.fill('#input-field-tea', 'Oolong');
        await page.fill('#input-field-cups', '2');
        await page.selectOption('#input-field-style', { label: 'long' });
        await page.check('#input-field-iced');
        await page.fill('#input-field-notes', '["floral", "roasted"]');
        await page.waitForFunction(() =>
          document.querySelector('#input-form-status')?.textContent?.includes('matches'),
        );
        expect(JSON.parse(await page.inputValue('#run-input'))).toEqual({
          tea: 'Oolong',
          cups: 2,
          style: 'long',
          iced: true,
          notes: ['floral', 'roasted'],
        });
        expect(await runAgentInPage(page)).toBe('completed');
        expect(await page.textContent('#final-state')).toContain('Oolong for 2 (long, iced: true, 2 notes)');
        expect(await seriousViolations(page)).toEqual([]);
        await screenshot(page, `studio-server-agent-${width}`);

        // An agent without input_schema: no form, the JSON box as before.
        await page.selectOption('#server-agent', 'plain');
        await page.waitForSelector('#server-agent-view[data-agent="plain"] #input-form-none');
        expect(await page.inputValue('#run-input')).toBe('{}');
        expect(await runAgentInPage(page)).toBe('completed');
        await context.close();
      });
    }

    it('a run of the broken agent over the API is refused 422 naming its problem', async () => {
      const response = await fetch(`${server.url}/agents/broken-action/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(response.status).toBe(422);
      const body = (await response.json()) as { error: { code: string; message: string; file: string; line: number } };
      expect(body.error).toMatchObject({ code: 'INVALID_AGENT', file: 'broken-action.yaml', line: 5 });
      expect(body.error.message).toMatch(/broken-action\.yaml:5:\d+ UNKNOWN_ACTION/);
    });
  },
);
