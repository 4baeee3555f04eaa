/**
 * Driving the web demo page in the browser tests: open it with chosen model settings, put an
 * agent into the editor the way a user would (select all, type), run, and wait for the end.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ROOT } from './serve-demo.js';

export const SCREENSHOTS = path.join(ROOT, 'test-artifacts/screenshots');

/** The two widths each studio screen is checked and saved at: the default 1280 px, and 375 px. */
export const WIDE_AND_NARROW = [
  ['wide', undefined],
  ['narrow', { width: 375, height: 800 }],
] as const;

export interface ModelSettingsInput {
  preset: 'scripted' | 'ollama' | 'lmstudio' | 'llamacpp' | 'custom';
  api_base?: string;
  model?: string;
  api_key?: string;
}

/** A fresh context (own storage) with the model settings saved before the app starts (`null`: none saved). */
export async function openDemo(
  browser: Browser,
  url: string,
  settings: ModelSettingsInput | null = { preset: 'scripted' },
  viewport = { width: 1280, height: 900 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  if (settings) {
    const saved = JSON.stringify({ api_base: '', model: '', api_key: '', ...settings });
    await context.addInitScript((value) => {
      if (!localStorage.getItem('tea-edge.model-settings')) localStorage.setItem('tea-edge.model-settings', value);
    }, saved);
  }
  const page = await context.newPage();
  await page.goto(url);
  await waitReady(page);
  return { context, page };
}

/** Waits until the app started and the editor replaced the plain text area. */
export async function waitReady(page: Page): Promise<void> {
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForSelector('body[data-editor="ready"]');
}

/** Replaces the agent in the editor by typing it. */
export async function setAgent(page: Page, yamlText: string): Promise<void> {
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(yamlText);
  await page.waitForFunction((expected) => {
    const lines = document.querySelectorAll('.cm-content .cm-line');
    return lines.length >= expected;
  }, yamlText.trimEnd().split('\n').length);
}

/** Reads a fixture agent from tests/browser/fixtures. */
export function fixture(name: string): Promise<string> {
  return readFile(path.join(ROOT, 'tests/browser/fixtures', name), 'utf8');
}

/** Clicks Run and waits for the run to end; returns the status shown. */
export async function runAgentInPage(page: Page, timeout = 30_000): Promise<string> {
  await startRun(page);
  return waitForEnd(page, timeout);
}

/** Clicks Run and waits until the view shows the new run. */
export async function startRun(page: Page): Promise<string> {
  const before = (await page.getAttribute('#run-status', 'data-run-id')) ?? '';
  await page.click('#run-button');
  await page.waitForFunction((previous) => {
    const id = document.querySelector('#run-status')?.getAttribute('data-run-id');
    return Boolean(id) && id !== previous;
  }, before);
  return (await page.getAttribute('#run-status', 'data-run-id')) ?? '';
}

/** Waits until the status line shows a finished run (the current one). */
export async function waitForEnd(page: Page, timeout = 30_000): Promise<string> {
  await page.waitForSelector('#run-status[data-status]:not([data-status="running"])', { timeout });
  return (await page.getAttribute('#run-status', 'data-status')) ?? '';
}

/** Saves a screenshot under test-artifacts/screenshots/. */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage });
}
