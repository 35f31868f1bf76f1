import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env['WAPII_CHROMIUM'] ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);

/** Debian's Chromium, headless, with the flags this machine's closed network needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
