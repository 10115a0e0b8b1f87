import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The do-not-contact page in Debian's chromium: add, import a CSV, remove with a reason. */
describe('admin UI: the do-not-contact list in a real browser', () => {
  let t: TestGateway;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const listed = async () => ((await (await t.call('GET', '/admin/api/do-not-contact', { token: t.orchestratorToken })).json()) as { entries: { address: string; source: string }[] }).entries;

  before(async () => {
    t = await startTestGateway();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    watchPage(page, problems);
    await page.goto(`${t.url}/admin/do-not-contact`);
    await page.getByLabel('Orchestrator token').fill(t.orchestratorToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Do not contact' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('adds an address from the form and lists it with why', async () => {
    await page.getByText('The list is empty.').waitFor();
    await page.getByLabel('Address', { exact: true }).fill('whatsapp:+14155550190');
    await page.getByLabel('Reason', { exact: true }).fill('asked on a call');
    await page.getByRole('button', { name: 'Add to the list' }).click();
    await page.getByRole('status').getByText('+14155550190 is on the list').waitFor();
    const row = page.getByRole('row').filter({ hasText: '+14155550190' });
    await row.getByText('added by the operator: asked on a call').waitFor();
    assert.deepEqual((await listed()).map((e) => e.address), ['+14155550190']);
  });

  it('imports a CSV and says which rows it could not take', async () => {
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'list.csv', mimeType: 'text/csv', buffer: Buffer.from('address,reason\n+14155550191,complained\nnobody\n') });
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('alert').getByText('Imported 1 address').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /line 3 \(nobody\)/);
    await page.getByRole('row').filter({ hasText: '+14155550191' }).getByText('imported: complained').waitFor();
  });

  it('removes an entry only with a reason, which the history keeps', async () => {
    page.once('dialog', (dialog) => void dialog.accept('opted in again in writing'));
    await page.getByRole('button', { name: 'Remove +14155550190' }).click();
    await page.getByRole('status').getByText('+14155550190 is off the list').waitFor();
    assert.deepEqual((await listed()).map((e) => e.address), ['+14155550191']);
    const history = (await (await t.call('GET', '/admin/api/do-not-contact/history?address=%2B14155550190', { token: t.orchestratorToken })).json()) as { changes: { action: string; reason: string }[] };
    assert.deepEqual(history.changes.map((c) => [c.action, c.reason]), [['added', 'asked on a call'], ['removed', 'opted in again in writing']]);
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('button', { name: 'Remove +14155550191' }).click();
    assert.equal((await listed()).length, 1, 'a dismissed prompt removes nothing');
  });

  it('shows an entry the operator narrowed to some channels', async () => {
    const narrowed = await t.call('POST', '/admin/api/do-not-contact/narrow', { token: t.orchestratorToken, json: { address: '+14155550191', channels: ['sms'], reason: 'asked not to be texted; calls are fine' } });
    assert.equal(narrowed.status, 200, await narrowed.clone().text());
    await page.reload();
    await page.getByRole('row').filter({ hasText: '+14155550191' }).getByText('sms only').waitFor();
  });

  it('has no serious accessibility findings and no script or CSP errors', async () => {
    await page.evaluate(AXE);
    const violations = (await page.evaluate(() => (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] }).then((r: any) => r.violations))) as { id: string; impact: string | null }[];
    assert.deepEqual(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id), []);
    await screenshot(page, 'admin-do-not-contact');
    assert.deepEqual(problems, []);
  });
});
