import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from '../support/browser.js';
import { ARTIFACTS, DEMO_SPECS, tempDir } from '../support/paths.js';
import { openSession, type Session } from '../support/session.js';

/** The spec-version diff view on `wapii serve`'s demo: the demo spec's v2 against the stored v1. */
describe.runIf(hasChromium)('spec versions in Chromium on `wapii serve`', () => {
  const dir = tempDir();
  let session: Session | undefined;
  let serve: Session['serve'];
  let page: Page;
  beforeAll(async () => {
    session = await openSession(['--db', path.join(dir, 'specs.db')]);
    ({ serve, page } = session);
  });
  afterAll(async () => {
    await session?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows the endpoints v2 adds, removes and changes, the samples that break and those on novel endpoints', async () => {
    await page.goto(serve.openUrl);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Spec versions', exact: true }).click();
    await page.getByLabel('New spec version').setInputFiles(path.join(DEMO_SPECS, 'versions', 'harbor-v2.yaml'));
    await page.getByRole('button', { name: 'Compare with the stored version' }).click();
    await expect.poll(() => page.getByTestId('spec-diff-summary').textContent(), { timeout: 15_000 }).toMatch(/— 3 endpoints added, 2 removed, 5 changed; \d+ of 32 samples break, \d+ fixed; \d+ on added or changed endpoints$/);
    const endpoints = page.getByTestId('spec-endpoints');
    expect(await endpoints.locator(':scope > li.added').count()).toBe(3);
    expect(await endpoints.locator(':scope > li.removed').allTextContents()).toContain('− DELETE /webhooks/{webhook_id}');
    expect(await endpoints.locator(':scope > li.changed').count()).toBe(5);
    expect(await endpoints.textContent()).toContain('body capacity_pallets: type integer → string');
    expect(await page.getByTestId('spec-breaks').locator('tbody tr').count()).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'e2e-conditions-6-spec-versions.png'), fullPage: true });
  }, 60_000);
});
