import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.js';
import type { Simulator } from '@switchboard/provider-simulator';
import { startTestDeployment, type TestDeployment } from '../helpers/deployment.js';

const CUSTOMER = '+14155550177';

/** The whole operator journey in Debian's chromium: sign in, wizard, deploy, dashboard, block, API explorer. */
describe('admin UI in a real browser', () => {
  let d: TestDeployment;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const sim = () => d.deployment.current.simulator as unknown as Simulator;
  const shot = (name: string) => screenshot(page, name);

  before(async () => {
    d = await startTestDeployment();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    watchPage(page, problems);
  });
  after(async () => {
    await browser?.close();
    await d?.close();
  });

  it('signs in with the orchestrator token; a wrong token says so', async () => {
    await page.goto(`${d.url}/admin/setup`);
    await page.getByLabel('Orchestrator token').fill('wrong-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: /not valid/ }).waitFor();
    await page.getByLabel('Orchestrator token').fill(d.orchestratorToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Setup' }).waitFor();
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === 'sb_session')!;
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.ok(session.expires > Date.now() / 1000);
    const stored = await page.evaluate(() => {
      const w = globalThis as any;
      return JSON.stringify({ ...w.localStorage }) + JSON.stringify({ ...w.sessionStorage }) + w.document.cookie;
    });
    assert.ok(!stored.includes(d.orchestratorToken), 'the token is not kept by the page');
    await shot('01-setup-signed-in');
  });

  it('runs the wizard against the simulator, with a failing credential test and its message', async () => {
    const creds = sim().credentials;
    await page.getByText(/Demo mode/).waitFor();
    await page.getByLabel('Account SID').fill(creds.twilio.accountSid);
    await page.getByLabel('Auth token').fill('not-the-token');
    await page.getByRole('button', { name: 'Test credentials' }).click();
    await page.getByRole('status').filter({ hasText: /✗ Twilio refused the credentials/ }).waitFor();
    await shot('02-wizard-failing-test');
    await page.getByLabel('Auth token').fill(creds.twilio.authToken);
    await page.getByRole('button', { name: 'Test credentials' }).click();
    await page.getByRole('status').filter({ hasText: /✓ Twilio account/ }).waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('API key').fill(creds.resend.apiKey);
    await page.getByRole('button', { name: 'Test credentials' }).click();
    await page.getByRole('status').filter({ hasText: /^✓/ }).waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('heading', { name: 'LINE' }).waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel(/ElevenLabs API key/).fill(creds.elevenlabs.apiKey);
    await page.getByRole('button', { name: 'Test ElevenLabs' }).click();
    await page.getByRole('status').filter({ hasText: /✓ ElevenLabs/ }).waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    // The pool fields come from the channel table (GET /admin/api/channels).
    for (const label of ['Phone numbers (E.164, SMS and voice)', 'WhatsApp senders (E.164)', 'LINE bot user ids']) await page.getByLabel(label).waitFor();
    await page.getByLabel('Email domain').fill('wizard.example.com');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('cell', { name: `${d.url}/webhooks/{agentId}/sms` }).waitFor();
    await shot('03-wizard-webhooks');
    await page.getByRole('button', { name: 'Next' }).click();
  });

  it('saves and deploys, and the server comes back with the new settings', async () => {
    const first = d.deployment.current;
    await page.getByLabel(/Stay in demo mode/).check();
    await page.getByRole('button', { name: 'Save and deploy', exact: true }).click();
    await page.getByText('Deployed: the server is running with the new settings.').waitFor({ timeout: 60_000 });
    await shot('04-deployed');
    assert.notEqual(d.deployment.current, first);
    assert.equal(d.deployment.current.runtime.settings.EMAIL_DOMAIN, 'wizard.example.com');
    assert.equal(d.deployment.current.runtime.demoMode, true);
    const env = readFileSync(d.envFile, 'utf8');
    assert.match(env, /^EMAIL_DOMAIN=wizard\.example\.com$/m);
    assert.match(env, /^DEMO_MODE=true$/m);
  });

  it('the dashboard updates after sending and receiving messages', async () => {
    await page.goto(`${d.url}/admin/dashboard`);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const team = await d.deployment.current.runtime.inspect.tokens.teamToken();
    const prov = await d.call('POST', '/api/v1/provision', { token: team, json: { agentId: 'browser-1', displayName: 'Browser Bot', channels: ['sms'] } });
    assert.equal(prov.status, 201);
    const agent = await prov.json() as any;
    const sent = await d.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: CUSTOMER, body: 'from the test' } });
    assert.equal(sent.status, 200);
    const inbound = await sim().inbound.sms({ agentId: 'browser-1', from: CUSTOMER, to: agent.channels.sms.address, body: 'reply from a customer' });
    assert.equal(inbound.status, 200);
    // Polling picks it up without a reload.
    await page.locator('[data-stat="messages"] .value').filter({ hasText: '1 / 1' }).waitFor({ timeout: 20_000 });
    await page.locator('[data-stat="dead-letters"] .value').filter({ hasText: '1' }).waitFor();
    await page.getByRole('link', { name: 'Browser Bot' }).waitFor();
    await page.getByText(/reply from a customer/).waitFor();
    await shot('05-dashboard');
  });

  it('blocks a channel from the agent detail page', async () => {
    await page.getByRole('link', { name: 'Browser Bot' }).click();
    await page.getByRole('heading', { name: /Browser Bot/ }).waitFor();
    await page.getByRole('button', { name: 'Block sms' }).click();
    await page.getByText('sms is now blocked.').waitFor();
    await page.getByRole('button', { name: 'Unblock sms' }).waitFor();
    await shot('06-agent-blocked');
    const detail = await (await d.call('GET', '/admin/api/agents/browser-1', { token: d.orchestratorToken })).json() as any;
    assert.deepEqual(detail.agent.blockedChannels, ['sms']);
  });

  it('the API explorer calls GET /api/v1/channel-status with an entered token', async () => {
    const team = await d.deployment.current.runtime.inspect.tokens.teamToken();
    await page.goto(`${d.url}/admin/api-docs`);
    await page.getByLabel('Bearer token').fill(team);
    await page.getByRole('button', { name: /GET \/api\/v1\/channel-status/ }).click();
    const op = page.locator('[data-operation="getChannelStatus"]');
    await op.getByLabel('agentId').fill('browser-1');
    await op.getByRole('button', { name: 'Send request' }).click();
    await op.getByRole('status').filter({ hasText: /^200\b/ }).waitFor({ timeout: 20_000 });
    await op.locator('pre.response-body').getByText(/"sms"/).waitFor();
    await shot('07-api-explorer');
  });

  it('works on a phone-sized screen and with the keyboard', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${d.url}/admin/dashboard`);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
    assert.ok(overflow <= 1, `no horizontal scrolling (${overflow}px)`);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent), 'Skip to content');
    await shot('08-dashboard-phone');
  });

  it('signs out, and the page asks to sign in again; nothing broke the CSP', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByLabel('Orchestrator token').waitFor();
    assert.equal((await page.context().cookies()).find((c) => c.name === 'sb_session'), undefined);
    assert.deepEqual(problems, []);
  });
});
