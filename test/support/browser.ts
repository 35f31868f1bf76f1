import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env['WAPII_CHROMIUM'] ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);

/** Debian's Chromium, headless, with the flags this machine's closed network needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * Whether Chromium still draws `page`: two animation frames arrive within `ms`.
 *
 * On CI's loaded machine headless Chromium has, now and then, stopped drawing a tab while the page's
 * script still ran: every screenshot and every Playwright wait for a "stable" element then timed out,
 * and a chart that sizes itself by ResizeObserver (which fires only with a frame) never appeared. A
 * file that keeps one page for many tests asks this before each, so one stalled tab is named as
 * such instead of failing every test after it.
 */
export async function drawing(page: Page, ms = 10_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const frames = page
    .evaluate(() => new Promise<true>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true)))))
    .catch(() => false as const);
  try {
    return await Promise.race([frames, late]);
  } finally {
    clearTimeout(timer);
  }
}
