/**
 * Launching Debian's Chromium for the browser tests. Without /usr/bin/chromium the suites are
 * skipped with a clear message, except under CI, where a missing browser fails the run.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** True when the browser suites can run; throws under CI when Chromium is missing. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI)
    throw new Error(`${CHROMIUM_PATH} is missing and CI is set: install it with apt-get install -y chromium`);
  console.warn(
    `browser tests skipped: ${CHROMIUM_PATH} is missing (apt-get install -y chromium); under CI they fail instead`,
  );
  return false;
}

/** Headless Chromium with the flags measured to work on these machines. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
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
}
