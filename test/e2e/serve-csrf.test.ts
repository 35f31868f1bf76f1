import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchClient } from '../../main/api/fetchClient.js';
import type { WorkbenchApi } from '../../main/api/contract.js';
import { hasChromium, launchChromium } from '../support/browser.js';
import { tempDir } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';

/** Another local server: what any web page the user visits could be, on another 127.0.0.1 port. */
function startAttacker(page: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((_, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(page);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise((done) => server.close(() => done())) }),
    ),
  );
}

describe.runIf(hasChromium)('`wapii serve` refuses cross-site writes from a real browser', () => {
  let serve: ServeProcess;
  let other: ServeProcess;
  let browser: Browser;
  let context: BrowserContext;
  let api: WorkbenchApi;
  let sampleId: string;
  let revisions: number;

  beforeAll(async () => {
    [serve, other] = await Promise.all([startServe(['--db', path.join(tempDir(), 'csrf.db')]), startServe(['--db', path.join(tempDir(), 'csrf-other.db')])]);
    api = createFetchClient({ baseUrl: serve.url, token: serve.token });
    sampleId = (await api.listSamples({ datasetId: 1 }))[0]!.id;
    revisions = (await api.getSample({ datasetId: 1, sampleId })).revisions.length;
    browser = await launchChromium();
    context = await browser.newContext();
    // The user has the workbench open: the browser holds its cookie.
    const page = await context.newPage();
    await page.goto(serve.openUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([serve?.stop(), other?.stop()]);
  });

  it('an auto-submitted text/plain form from another 127.0.0.1 port changes nothing', async () => {
    const body = JSON.stringify({ datasetId: 1, sampleId, reviewState: 'rejected', reason: 'cross-site', pad: '' }).slice(0, -2);
    const attacker = await startAttacker(
      `<form method="POST" action="${serve.url}/api/editSample" enctype="text/plain"><input name='${body}' value='"}'></form>` +
        `<script>fetch(${JSON.stringify(serve.url + '/api/undoEdit')}, {method: 'POST', mode: 'no-cors', credentials: 'include', headers: {'Content-Type': 'text/plain'}, body: ${JSON.stringify(JSON.stringify({ datasetId: 1, sampleId }))}}).finally(() => document.forms[0].submit())</script>`,
    );
    try {
      const page = await context.newPage();
      const answers: number[] = [];
      page.on('response', (r) => {
        if (r.url().startsWith(serve.url)) answers.push(r.status());
      });
      await page.goto(attacker.url);
      await page.waitForURL(`${serve.url}/api/editSample`);
      // The browser did send the form, cookie and all (SameSite ignores ports); the server refused it.
      expect(await page.locator('body').textContent()).toContain('Content-Type: application/json');
      expect(answers.length).toBeGreaterThanOrEqual(1);
      expect(answers.every((s) => s === 415 || s === 403)).toBe(true);
      const detail = await api.getSample({ datasetId: 1, sampleId });
      expect(detail.revisions.length).toBe(revisions);
      expect(detail.sample.reviewState).toBe('unreviewed');
    } finally {
      await attacker.close();
    }
  });

  it('a JSON fetch from another port is refused by its Origin, while the workbench page itself may write', async () => {
    const attacker = await startAttacker('<p>hi</p>');
    try {
      const page = await context.newPage();
      await page.goto(attacker.url);
      const outcome = await page.evaluate(
        async ([url, sample]) => {
          try {
            const r = await fetch(url, { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ datasetId: 1, sampleId: sample, reviewState: 'rejected', reason: 'x' }) });
            return `status ${r.status}`;
          } catch {
            return 'blocked';
          }
        },
        [`${serve.url}/api/editSample`, sampleId] as const,
      );
      // The preflight gets no CORS grant, so the browser never sends the POST.
      expect(outcome).toBe('blocked');
      expect((await api.getSample({ datasetId: 1, sampleId })).revisions.length).toBe(revisions);

      const own = await context.newPage();
      await own.goto(`${serve.url}/`);
      const status = await own.evaluate(async (sample) => {
        const r = await fetch('/api/editSample', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ datasetId: 1, sampleId: sample, reviewState: 'accepted', reason: 'own page' }) });
        return r.status;
      }, sampleId);
      expect(status).toBe(200);
      expect((await api.getSample({ datasetId: 1, sampleId })).sample.reviewState).toBe('accepted');
    } finally {
      await attacker.close();
    }
  });

  it('a second serve on another port gets its own cookie, and the first one keeps working', async () => {
    const second = await context.newPage();
    await second.goto(other.openUrl);
    const first = await context.newPage();
    const streams: string[] = [];
    first.on('request', (r) => {
      if (r.url().endsWith('/api/events')) streams.push(r.url());
    });
    // Every page of the app subscribes to events; one tab must still hold one stream, or a few
    // tabs use up the browser's six connections per server and calls wait forever.
    await first.goto(`${serve.url}/`);
    for (const page of ['Models', 'Runs', 'Review', 'Compare', 'Datasets']) {
      await first.getByRole('link', { name: page, exact: true }).click();
      await first.locator('.nav.active', { hasText: page }).waitFor();
    }
    await first.waitForTimeout(500);
    expect(streams.length).toBe(1);
    const call = (url: string): Promise<number> =>
      (url === serve.url ? first : second).evaluate(async () => (await fetch('/api/listDatasets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status);
    expect(await call(serve.url)).toBe(200);
    expect(await call(other.url)).toBe(200);
    const names = (await context.cookies()).map((c) => c.name).sort();
    expect(names).toEqual([`wapii_token_${new URL(serve.url).port}`, `wapii_token_${new URL(other.url).port}`].sort());
  }, 180_000);
});
