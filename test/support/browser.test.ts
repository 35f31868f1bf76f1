import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawing, hasChromium, launchChromium } from './browser.js';

/** `drawing` tells a tab that draws from one that has stopped (here: its main thread held for 4 s). */
describe.runIf(hasChromium)('drawing', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('is true for a tab that draws and false, within its wait, for one that does not', async () => {
    const page = await browser.newPage();
    await page.setContent('<p>drawn</p>');
    expect(await drawing(page)).toBe(true);
    await page.evaluate(() => {
      setTimeout(() => {
        const until = Date.now() + 4_000;
        while (Date.now() < until);
      });
    });
    expect(await drawing(page, 1_000)).toBe(false);
    // Once the page draws again, so does the answer.
    expect(await drawing(page)).toBe(true);
    await page.close();
  }, 60_000);
});
