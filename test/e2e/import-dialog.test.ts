import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/browser.js';
import { REPO_ROOT, tempDir } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';

const built = fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));
const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'openapi');

describe.runIf(hasChromium)('the import dialog: lenient references and a server for a spec without one', () => {
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  let dataset: string;

  beforeAll(async () => {
    if (!built) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    const dir = tempDir('wapii-dialog-');
    dataset = path.join(dir, 'mixed.json');
    fs.writeFileSync(
      dataset,
      JSON.stringify([
        { api: 'chat', task: 'Add a@b.example.', config: { url: 'https://api.chat.example/contacts', method: 'post', data: { email: 'a@b.example', custom_attributes: { x: 1 } } } },
        { api: 'cluster', task: 'List pods of prod.', config: { url: 'https://k8s.example/api/v1/namespaces/prod/pods', method: 'get' } },
      ]),
    );
    serve = await startServe(['--db', path.join(dir, 'e2e.db')]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  const fillDialog = async (): Promise<void> => {
    await page.getByLabel('Dataset file').setInputFiles(dataset);
    await page.getByLabel('Spec files').setInputFiles([path.join(FIXTURES, 'dangling', 'chat.yaml'), path.join(FIXTURES, 'noserver', 'cluster.yaml')]);
  };

  it('refuses broken references by default, naming them and the box that allows them', async () => {
    await page.goto(serve.openUrl);
    await expect.poll(() => page.getByTestId('sample-count').textContent()).toBe('32 samples');
    await page.getByRole('button', { name: 'Import dataset…' }).click();
    await fillDialog();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^chat\.yaml: unresolved \$ref .*"#\/components\/schemas\/custom_attributes" \(4 uses\).*--lenient-refs/);
  });

  it('imports with the box ticked and a server given, and lists what that changed', async () => {
    await page.getByLabel('Lenient references').check();
    await page.getByLabel('Server URL').fill('https://k8s.example');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByLabel('Import notes').locator('li').allTextContents(), { timeout: 30_000 }).toEqual([
      'API chat: broken $ref "#/components/parameters/missing_version" (1 use) imported as any value',
      'API chat: broken $ref "#/components/schemas/custom_attributes" (4 uses) imported as any value',
      'API cluster: its spec declares no server; using https://k8s.example',
    ]);
    await page.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => page.getByTestId('sample-count').textContent()).toBe('2 samples');
    expect(await page.getByTestId('dataset-summary').textContent()).toBe('2 APIs · 0 flagged by checks');
  });
});
