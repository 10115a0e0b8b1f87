import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.js';
import { startTestDeployment, type TestDeployment } from '../helpers/deployment.js';


/** The setup wizard in demo mode, in Debian's chromium: what it shows before a deploy, and a deploy's outcome. */
describe('setup wizard in a real browser', () => {
  let d: TestDeployment;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const shot = (name: string) => screenshot(page, name);
  const deployStep = () => page.getByRole('button', { name: /Save and deploy$/ }).first();

  before(async () => {
    d = await startTestDeployment('MARKUP_PERCENT=1\n');
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    watchPage(page, problems);
    await page.goto(`${d.url}/admin/setup`);
    await page.getByLabel('Orchestrator token').fill(d.orchestratorToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Setup' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await d?.close();
  });

  it('shows the simulator and its demo credentials, which the credential test accepts', async () => {
    const sim = d.deployment.current.simulator!;
    await page.getByText(`which listens at ${sim.url}`).waitFor();
    await page.getByText(sim.credentials.twilio.authToken, { exact: true }).waitFor();
    await shot('wizard-demo-credentials');
    await page.getByLabel('Account SID').fill(sim.credentials.twilio.accountSid);
    await page.getByLabel('Auth token').fill(sim.credentials.twilio.authToken);
    await page.getByRole('button', { name: 'Test credentials' }).click();
    await page.getByRole('status').filter({ hasText: /✓ Twilio account/ }).waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText(sim.credentials.resend.apiKey, { exact: true }).waitFor();
    // Back to nothing changed.
    await page.getByRole('button', { name: 'Back' }).click();
    await page.getByLabel('Account SID').fill('');
    await page.getByLabel('Auth token').fill('');
  });

  it('lists no change when nothing changed (not DEMO_MODE), and a deploy reports its outcome', async () => {
    await deployStep().click();
    await page.getByText('No changes to save').waitFor();
    assert.equal(await page.getByText(/Changes to save:/).count(), 0);
    const simulatorUrl = d.deployment.current.simulator!.url;
    await page.getByRole('button', { name: 'Save and deploy', exact: true }).click();
    await page.getByText('Deployed: the server is running with the new settings.').waitFor({ timeout: 60_000 });
    await page.getByText(`The demo simulator listens at ${simulatorUrl}.`).waitFor();
    await page.getByText(/Last deploy succeeded/).waitFor();
    assert.equal(d.deployment.current.simulator!.url, simulatorUrl, 'the simulator kept its port');
    assert.doesNotMatch(readFileSync(d.envFile, 'utf8'), /DEMO_MODE/);
  });

  it('a change lists only what changed and says it saves one setting', async () => {
    await page.getByRole('button', { name: /Pools$/ }).click();
    await page.getByLabel('Email domain').fill('wizard.example.com');
    await deployStep().click();
    await page.getByText('Changes to save: EMAIL_DOMAIN, DEMO_MODE').waitFor();
    await page.getByLabel(/Stay in demo mode/).uncheck();
    await page.getByText('Changes to save: EMAIL_DOMAIN', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Save and deploy', exact: true }).click();
    await page.getByText('Saving 1 setting…').waitFor();
    await page.getByText('Deployed: the server is running with the new settings.').last().waitFor({ timeout: 60_000 });
    assert.equal(d.deployment.current.runtime.settings.EMAIL_DOMAIN, 'wizard.example.com');
  });

  it('a deploy that fails at start-up shows why, and that the previous settings serve and the file was put back', async () => {
    const before = readFileSync(d.envFile, 'utf8');
    // Edited by hand: passes every check before the swap, but no loaded driver is called "fax".
    writeFileSync(d.envFile, `${before}SMS_DRIVER=fax\n`);
    await page.reload();
    await deployStep().click();
    await page.getByRole('button', { name: 'Save and deploy', exact: true }).click();
    await page.getByText(/Deploy failed: Setting SMS_DRIVER=fax names no loaded driver/).waitFor({ timeout: 60_000 });
    await page.getByText(/The previous settings are serving again, and the env file was put back as it was/).waitFor();
    await page.getByText(/Last deploy failed .*SMS_DRIVER=fax/).waitFor();
    await shot('wizard-deploy-failed');
    assert.equal(readFileSync(d.envFile, 'utf8'), before);
  });

  it('a deploy refused before the swap says so and shows it as the last deploy', async () => {
    const before = readFileSync(d.envFile, 'utf8');
    const saved = await d.call('POST', '/admin/api/save', { token: d.orchestratorToken, json: { settings: { DRIVERS: 'left-pad' } } });
    assert.equal(saved.status, 200);
    await page.getByRole('button', { name: 'Save and deploy', exact: true }).click();
    await page.getByText(/Failed: The saved settings for left-pad are not valid.*env file was put back/).waitFor({ timeout: 60_000 });
    await page.getByText(/Last deploy failed .*left-pad/).waitFor();
    assert.equal(readFileSync(d.envFile, 'utf8'), before);
    assert.deepEqual(problems, []);
  });
});
