// The Providers page in Debian's chromium after a send failed over from Twilio to Telnyx: both SMS
// providers in order with their circuit badges, attempts and the prefix route; the credential test of
// the driver serving now; and the tables stacked inside a 390 px screen.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { TWO_SMS_PROVIDERS, twoSmsProviders } from '../helpers/sms-providers.js';

describe('admin UI Providers page: routing order, circuit badges and attempts after a failover, at desktop and phone width', { timeout: 120_000 }, () => {
  let t: TestGateway;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    t = await startTestGateway(
      { ...TWO_SMS_PROVIDERS, POOL_PHONE_NUMBERS: ['+12025550100', 'telnyx:+15555550102'].join(','), PROVIDER_CIRCUIT_HALF_OPEN_MS: 600_000 },
      undefined,
      { drivers: (sim) => twoSmsProviders(sim) },
    );
    const agent = await provisionAgent(t, 'ui-providers', ['sms']);
    t.sim.faults.add({ provider: 'twilio', method: 'POST', pathIncludes: '/Messages.json', status: 503 });
    try {
      for (let i = 0; i < 4; i++) {
        const res = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: '+14155550123', body: `page check ${i}` } });
        assert.equal(res.status, 200, await res.clone().text());
      }
    } finally {
      t.sim.faults.clear();
    }
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    watchPage(page, problems);
    await page.goto(`${t.url}/admin/providers`);
    await page.getByLabel('Orchestrator token').fill(t.orchestratorToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Providers', level: 1 }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A provider's row in the SMS table (a circuit is the provider's, so Twilio's WhatsApp row shows it too). */
  const row = (provider: string) => page.locator(`#providers-sms ~ .table-wrap tr[data-provider="${provider}"]`);

  it('shows both SMS providers in order, Twilio with an open circuit and refused attempts, Telnyx closed with the accepted ones', async () => {
    await row('twilio').locator('[data-circuit="open"]').waitFor();
    const providers = await page.locator('#providers-sms ~ .table-wrap tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-provider')));
    assert.deepEqual(providers.slice(0, 2), ['twilio', 'telnyx']);
    assert.equal(await row('twilio').locator('.circuit').innerText(), 'open');
    assert.match(await row('twilio').innerText(), /0 accepted · [3-9] refused/);
    assert.match(await row('twilio').innerText(), /100 %/);
    assert.equal(await row('telnyx').locator('.circuit').innerText(), 'closed');
    assert.match(await row('telnyx').innerText(), /4 accepted · 0 refused · 0 ambiguous/);
    assert.match(await page.locator('table.routes').innerText(), /\+44\s+telnyx → twilio/);
    await page.getByText('change it under Routing order below').waitFor();
    assert.equal(await page.locator('nav a[aria-current="page"]').innerText(), 'Providers');
    await screenshot(page, 'admin-providers-desktop');
  });

  it("tests a provider's credentials with the driver serving now", async () => {
    await row('telnyx').getByRole('button', { name: 'Test telnyx credentials' }).click();
    const result = row('telnyx').locator('.test-result');
    await result.waitFor();
    assert.match(await result.getAttribute('class') ?? '', /\bok\b/, await result.innerText());
  });

  it('stacks the tables inside a 390 px screen: every cell drawn on screen, the badge readable', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await row('twilio').locator('[data-circuit="open"]').waitFor();
    const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
    assert.ok(width <= 390, `the page scrolls sideways: ${width} px`);
    const cells = await page.locator('table.providers tbody tr, table.routes tbody tr').evaluateAll((trs) =>
      trs.flatMap((tr, r) =>
        [...tr.children].map((cell, c) => {
          const box = cell.getBoundingClientRect();
          return { at: `row ${r} cell ${c}`, left: box.left, right: box.right, width: box.width, height: box.height };
        }),
      ),
    );
    assert.ok(cells.length > 0);
    for (const c of cells) assert.ok(c.width > 0 && c.height > 0 && c.left >= 0 && c.right <= 390.5, `${c.at} off screen: ${JSON.stringify(c)}`);
    const badge = await row('twilio').locator('.circuit').boundingBox();
    assert.ok(badge && badge.width > 0 && badge.x + badge.width <= 390.5);
    assert.equal(await page.locator('table.providers thead').evaluateAll((heads) => heads.every((h) => h.getBoundingClientRect().height <= 1)), true, 'the header row is hidden; each cell says what it is');
    await screenshot(page, 'admin-providers-390');
  });

  it('loads without a script error or a refused resource', () => {
    assert.deepEqual(problems, []);
  });
});
