import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium: the browser tests never download one. */
const CHROMIUM = '/usr/bin/chromium';
const SHOTS = new URL('../artifacts/screenshots/', import.meta.url).pathname;

/** Launches headless chromium; fails loudly, saying how to install it, when it is missing. */
export function launchChromium(): Promise<Browser> {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this)`);
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/** Collects into `problems` every script error of the page, and every resource the Content-Security-Policy refused. */
export function watchPage(page: Page, problems: string[]): void {
  page.setDefaultTimeout(15_000);
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
}

/** Saves a full-page screenshot under test/artifacts/screenshots. */
export function screenshot(page: Page, name: string): Promise<Buffer> {
  return page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}
