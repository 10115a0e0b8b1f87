import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const CUSTOMER = '+14155550177';
const AGENT = 'quality-agent-with-a-rather-long-name';

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core's serious and critical findings on the page as it stands (evaluated over CDP, so the page's CSP still holds for the page). */
async function axeFindings(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = (await page.evaluate(() => (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] }).then((r: any) => r.violations))) as Violation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id} (${v.help}) ×${v.nodes.length}: ${v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(' ')}`);
}

/** Accessibility, narrow screens, refresh failures and the API explorer, each page in Debian's chromium. */
describe('admin UI quality in a real browser', () => {
  let t: TestGateway;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let agentToken: string;
  const problems: string[] = [];
  const shot = (name: string) => screenshot(page, name);
  const signIn = async () => {
    await page.getByLabel('Orchestrator token').fill(t.orchestratorToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };

  before(async () => {
    t = await startTestGateway();
    const agent = await provisionAgent(t, AGENT);
    agentToken = agent.securityToken;
    await provisionAgent(t, 'quality-2', ['email', 'line']);
    const sent = await t.call('POST', '/api/v1/send-message', { token: agentToken, json: { channel: 'sms', to: CUSTOMER, body: 'hello from the quality test' } });
    assert.equal(sent.status, 200);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    watchPage(page, problems);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('has no serious or critical axe findings on the sign-in, setup, dashboard, agent and API explorer pages, light and dark', async () => {
    const findings: string[] = [];
    const check = async (name: string) => findings.push(...(await axeFindings(page)).map((f) => `${name}: ${f}`));
    const pages: [string, string, () => Promise<unknown>][] = [
      ['dashboard', '/admin/dashboard', () => page.getByRole('link', { name: AGENT }).waitFor()],
      ['agent', `/admin/agents/${AGENT}`, () => page.getByRole('button', { name: 'Block sms' }).waitFor()],
      ['setup', '/admin/setup', () => page.getByRole('heading', { name: 'Setup' }).waitFor()],
      [
        'api explorer',
        '/admin/api-docs',
        async () => {
          await page.getByRole('button', { name: /POST \/api\/v1\/send-message/ }).click();
          await page.getByRole('button', { name: 'Send request' }).click();
          await page.getByRole('status').filter({ hasText: /^401\b/ }).waitFor();
        },
      ],
    ];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${t.url}/admin/dashboard`);
      await page.getByLabel('Orchestrator token').waitFor();
      await check(`sign-in (${scheme})`);
      await signIn();
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
      for (const [name, path, ready] of pages) {
        await page.goto(`${t.url}${path}`);
        await ready();
        await check(`${name} (${scheme})`);
      }
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.getByLabel('Orchestrator token').waitFor();
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await signIn();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    assert.deepEqual(findings, []);
  });

  it('fits a 390 px screen: the agent page does not scroll sideways, its Block buttons and the dashboard chips show whole', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.url}/admin/agents/${AGENT}`);
    await page.getByRole('button', { name: 'Block sms' }).waitFor();
    const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the agent page is ${width} px wide at 390 px`);
    for (const button of await page.getByRole('button', { name: /^Block / }).all()) {
      const box = (await button.boundingBox())!;
      assert.ok(box.x >= 0 && box.x + box.width <= 390, `${await button.getAttribute('aria-label')} is at ${box.x}–${box.x + box.width} px`);
    }
    await shot('quality-agent-phone');
    await page.goto(`${t.url}/admin/dashboard`);
    await page.getByRole('link', { name: AGENT }).waitFor();
    const chips = await page.locator('.chip').evaluateAll((els: any[]) =>
      els.map((el) => {
        const r = el.getBoundingClientRect();
        let clipped = el.scrollWidth > el.clientWidth;
        for (let p = el.parentElement; p; p = p.parentElement) if (p.scrollWidth > p.clientWidth + 1 && (globalThis as any).getComputedStyle(p).overflowX !== 'visible') clipped = true;
        return { text: el.textContent, left: r.left, right: r.right, clipped };
      }),
    );
    assert.ok(chips.length >= 7, 'both agents show their channels');
    for (const chip of chips) assert.ok(!chip.clipped && chip.left >= 0 && chip.right <= 390, `chip ${chip.text} is clipped (${chip.left}–${chip.right} px)`);
    const dashWidth = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth);
    assert.ok(dashWidth <= 390, `the dashboard is ${dashWidth} px wide at 390 px`);
    await shot('quality-dashboard-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('says so when a dashboard refresh fails, and how old the figures are; the error clears when it works again', async () => {
    await page.goto(`${t.url}/admin/dashboard`);
    await page.locator('[data-stat="messages"] .value').filter({ hasText: '0 / 1' }).waitFor();
    await page.route('**/admin/api/dashboard', (route) => route.abort('connectionrefused'));
    const alert = page.getByRole('alert').filter({ hasText: /Could not refresh/ });
    await alert.waitFor({ timeout: 20_000 });
    assert.match(await alert.innerText(), /last updated \d+ s ago/);
    await shot('quality-dashboard-refresh-failed');
    await page.unroute('**/admin/api/dashboard');
    await alert.waitFor({ state: 'detached', timeout: 20_000 });
  });

  it('uses correct plurals and articles on the dashboard and agent page', async () => {
    await page.goto(`${t.url}/admin/dashboard`);
    await page.locator('[data-stat="today"] .value').filter({ hasText: /^1 action ·/ }).waitFor();
    await page.goto(`${t.url}/admin/agents/${AGENT}`);
    await page.locator('[data-stat="today"] .value').filter({ hasText: /^1 action ·/ }).waitFor();
    const text = await page.locator('main').innerText();
    assert.doesNotMatch(text, /\b1 actions\b|\(s\)|\(ies\)|\ba email\b/);
  });

  it('the API explorer lists every route by tag from a small bundle, and filters them', async () => {
    const bytes: number[] = [];
    page.on('response', async (r) => {
      if (new URL(r.url()).pathname.startsWith('/admin/') && r.request().resourceType() !== 'fetch') bytes.push((await r.body().catch(() => Buffer.alloc(0))).length);
    });
    const doc = (await (await t.call('GET', '/api/v1/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.values(doc.paths).reduce((n, p) => n + Object.keys(p).length, 0);
    await page.goto(`${t.url}/admin/api-docs`);
    await page.getByRole('heading', { name: 'Messaging', level: 2 }).waitFor();
    assert.equal(await page.locator('[data-operation]').count(), operations);
    page.removeAllListeners('response');
    const total = bytes.reduce((a, b) => a + b, 0);
    assert.ok(total < 300_000, `the explorer page and its assets are ${total} bytes`);
    await page.getByLabel('Filter routes').fill('channel-status');
    assert.equal(await page.locator('[data-operation]').count(), 1);
    await page.getByLabel('Filter routes').fill('');
  });

  it('the API explorer tries an admin route with the session, and an agent route with a pasted token, from the keyboard', async () => {
    await page.goto(`${t.url}/admin/api-docs`);
    const toggle = page.getByRole('button', { name: /GET \/admin\/api\/agents\b(?!\/)/ });
    await toggle.focus();
    await page.keyboard.press('Enter');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    const agents = page.locator('[data-operation="adminListAgents"]');
    await agents.getByRole('button', { name: 'Send request' }).click();
    await agents.getByRole('status').filter({ hasText: /^200\b/ }).waitFor();
    await agents.locator('pre.response-body').filter({ hasText: AGENT }).waitFor();

    await page.getByRole('button', { name: /GET \/api\/v1\/channel-status/ }).click();
    const op = page.locator('[data-operation="getChannelStatus"]');
    await op.getByText('Needs a bearer token').waitFor();
    await page.getByLabel('Bearer token').fill(agentToken);
    await op.getByRole('button', { name: 'Send request' }).click();
    await op.getByRole('status').filter({ hasText: /^200\b/ }).waitFor();
    await op.locator('pre.response-body').filter({ hasText: '"sms"' }).waitFor();
    await shot('quality-api-explorer');

    await page.getByRole('button', { name: /POST \/api\/v1\/send-message/ }).click();
    const send = page.locator('[data-operation="sendMessage"]');
    await send.getByLabel('Request body (JSON)').fill('{"channel":"sms"}');
    await send.getByRole('button', { name: 'Send request' }).click();
    await send.getByRole('status').filter({ hasText: /^400\b/ }).waitFor();
    await send.locator('pre.response-body').filter({ hasText: 'VALIDATION_FAILED' }).waitFor();
    await page.getByRole('button', { name: 'Use the team token' }).click();
    await page.getByText('The team token is filled in.').waitFor();
    assert.equal(await page.getByLabel('Bearer token').inputValue(), t.teamToken);
    await page.setViewportSize({ width: 390, height: 844 });
    const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the explorer is ${width} px wide at 390 px`);
    await shot('quality-api-explorer-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('the API explorer signs out like the other pages, and asks to sign in when there is no session', async () => {
    await page.goto(`${t.url}/admin/api-docs`);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByLabel('Orchestrator token').waitFor();
    assert.equal((await context.cookies()).find((c) => c.name === 'sb_session'), undefined);
    await page.reload();
    await signIn();
    await page.getByRole('heading', { name: 'API explorer' }).waitFor();
    assert.deepEqual(problems, []);
  });
});
