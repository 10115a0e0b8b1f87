// The Providers page's routing editor in Debian's chromium, on a server started from an env file: the
// operator moves Telnyx first with the keyboard, edits a prefix route, sees the API's refusal of a bad
// prefix, saves, sees the saved routing after a reload (waiting for a deploy), deploys, and sees it serve.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parseEnv } from 'node:util';
import { type Browser, type Page } from 'playwright-core';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.js';
import { startTestDeployment, type TestDeployment } from '../helpers/deployment.js';
import { twoSmsProvidersEnv } from '../helpers/sms-providers-env.js';

describe('admin UI routing editor: reorder, edit routes, save, reload, deploy', { timeout: 120_000 }, () => {
  let sim: Simulator;
  let d: TestDeployment;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    sim = await startSimulator({ phoneNumbers: ['+12025550100', '+15555550102'] });
    d = await startTestDeployment(twoSmsProvidersEnv(sim));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    watchPage(page, problems);
    await page.goto(`${d.url}/admin/providers`);
    await page.getByLabel('Orchestrator token').fill(d.orchestratorToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Routing order', level: 2 }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await d?.close();
    await sim?.close();
  });

  const order = () => page.locator('ol.routing-order[data-channel="sms"] > li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-provider')));
  const servingOrder = () => page.locator('#providers-sms ~ .table-wrap tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-provider')));
  const file = () => parseEnv(readFileSync(d.envFile, 'utf8')) as Record<string, string>;

  it('says a saved change serves only after a deploy', async () => {
    await page.getByText('a saved change serves only after a deploy').waitFor();
    assert.deepEqual(await order(), ['twilio', 'telnyx']);
    assert.equal(await page.getByRole('button', { name: 'Save routing' }).isDisabled(), true, 'nothing to save before a change');
  });

  it('moves Telnyx up with the keyboard, and shows the refusal of a bad prefix without saving it', async () => {
    const up = page.getByRole('button', { name: 'Move telnyx up in the SMS routing order' });
    await up.focus();
    await page.keyboard.press('Enter');
    assert.deepEqual(await order(), ['telnyx', 'twilio']);
    assert.equal(await page.getByRole('button', { name: 'Move telnyx up in the SMS routing order' }).isDisabled(), true, 'the first cannot move up');

    await page.getByRole('button', { name: 'Add a prefix route' }).click();
    await page.locator('input[name="route-prefix-1"]').fill('1');
    await page.locator('input[name="route-providers-1"]').fill('twilio,telnyx');
    await page.getByRole('button', { name: 'Save routing' }).click();
    const alert = page.locator('.routing-outcome[role="alert"]');
    await alert.waitFor();
    assert.match(await alert.innerText(), /Not saved: "1" is not an E\.164 prefix/);
    assert.equal(file().SMS_DRIVER, 'twilio,telnyx', 'a refused save writes nothing');
  });

  it('saves, and after a reload shows the saved routing waiting for a deploy', async () => {
    await page.locator('input[name="route-prefix-1"]').fill('+1');
    await page.getByRole('button', { name: 'Save routing' }).click();
    await page.locator('.routing-outcome[role="status"]').filter({ hasText: 'Saved SMS_DRIVER, SMS_ROUTES' }).waitFor();
    assert.equal(file().SMS_DRIVER, 'telnyx,twilio');
    assert.equal(file().SMS_ROUTES, '+44=telnyx,twilio;+1=twilio,telnyx');

    await page.reload();
    await page.locator('[data-pending="true"]').filter({ hasText: 'SMS telnyx → twilio' }).waitFor();
    assert.deepEqual(await order(), ['telnyx', 'twilio'], 'the editor starts from the saved routing');
    assert.equal(await page.locator('input[name="route-prefix-1"]').inputValue(), '+1');
    assert.deepEqual(await servingOrder(), ['twilio', 'telnyx'], 'the serving order is unchanged until a deploy');
    await screenshot(page, 'admin-providers-routing-saved');
  });

  it('deploys from the page, and the saved routing serves', async () => {
    await page.getByRole('button', { name: 'Deploy now' }).click();
    await page.getByText('Deployed: the saved routing serves now.').waitFor({ timeout: 60_000 });
    await page.reload();
    await page.getByRole('heading', { name: 'Routing order', level: 2 }).waitFor();
    await page.locator('#providers-sms ~ .table-wrap tbody tr').first().waitFor();
    assert.deepEqual(await servingOrder(), ['telnyx', 'twilio']);
    assert.match(await page.locator('table.routes').innerText(), /\+1\s+twilio → telnyx/);
    assert.equal(await page.locator('[data-pending="true"]').count(), 0);
  });

  it('removes a provider from the order and adds it back', async () => {
    await page.getByRole('button', { name: 'Remove twilio from the SMS routing order' }).click();
    assert.deepEqual(await order(), ['telnyx']);
    assert.equal(await page.getByRole('button', { name: 'Remove telnyx from the SMS routing order' }).isDisabled(), true, 'the last one stays');
    await page.getByRole('button', { name: 'Add twilio to the SMS routing order' }).click();
    assert.deepEqual(await order(), ['telnyx', 'twilio']);
    assert.equal(await page.getByRole('button', { name: 'Save routing' }).isDisabled(), true, 'back as it was: nothing to save');
  });

  it('loads without a script error or a refused resource', () => {
    // The deploy's swap answers 503 for a moment; the page's polls ride over it.
    assert.deepEqual(problems.filter((p) => !/\b503\b/.test(p)), []);
  });
});
