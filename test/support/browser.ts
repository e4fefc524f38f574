import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page, chromium as playwright } from 'playwright-core';

/** Where the page tests save their screenshots (ignored by git; docs/console.md shows a few, copied by hand). */
export const SCREENSHOT_DIR = path.join(__dirname, '..', '..', 'test-output', 'screenshots');

/** @sparticuz/chromium is an ES module whose CommonJS build exports its class (static members) as the module. */
const chromium: { executablePath(): Promise<string>; readonly args: string[] } = require('@sparticuz/chromium');

/**
 * @sparticuz/chromium's arguments are made for AWS Lambda; these would weaken what the tests
 * check (the same-origin policy, mixed content), fight playwright's own headless switch, or
 * (single process) take the whole browser down when a test closes its context.
 */
const DROPPED_ARGS = [
  /^--disable-web-security$/,
  /^--allow-running-insecure-content$/,
  /^--headless/,
  /^--disable-site-isolation-trials$/,
  /^--single-process$/,
];

/**
 * A real Chromium with Node alone: the build @sparticuz/chromium ships inside its npm package,
 * driven by playwright-core. One browser per test file; a fresh context (cookies) per journey.
 */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = await chromium.executablePath();
  return playwright.launch({
    executablePath,
    args: chromium.args.filter((arg) => !DROPPED_ARGS.some((dropped) => dropped.test(arg))),
    headless: true,
  });
}

/** A new browser context: its own cookies, a fixed viewport for comparable screenshots. */
export function newContext(browser: Browser, baseURL: string): Promise<BrowserContext> {
  return browser.newContext({ baseURL, viewport: { width: 1200, height: 800 } });
}

/** Saves a full-page screenshot as test-output/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Records, in the page, whether any script ran that the page's own code did not load: a payload
 * like `<script>window.__xss = 1</script>` or `<img onerror=…>` sets `window.__xss`. Call before
 * navigating; `scriptRan(page)` answers after.
 */
export async function watchForInjectedScript(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    (globalThis as { __xss?: number }).__xss = undefined;
  });
}

export async function scriptRan(page: Page): Promise<boolean> {
  return page.evaluate(() => (globalThis as { __xss?: number }).__xss !== undefined);
}

/** An XSS payload for a field: it sets window.__xss if it ever runs. */
export const XSS_PAYLOADS = ['<script>window.__xss=1</script>', '"><img src=x onerror="window.__xss=1">'] as const;
