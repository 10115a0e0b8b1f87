import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventuallyPasses } from '@switchboard/runtime/testing';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const CALLER = '+14155550161';
const CALLEE = '+14155550162';
const LISTENER = '+14155550163';
const ANSWERER = '+14155550167';
const CUSTOMERS = ['+14155550164', '+14155550165', '+14155550166'];
const LEFT_WORDS = 'Please call me back about my order number forty four.';
const SPOKEN = 'Your parcel arrives tomorrow between nine and noon.';
const FAST = { replyTimeoutMs: 4000, quietMs: 300 };

/** Each cell of the first rows of `rows`: whether it is drawn inside the viewport's width, and its text. */
async function cellsOf(page: Page, rows: string, first = 3) {
  return page.locator(rows).evaluateAll(
    (trs, n) =>
      trs.slice(0, n).flatMap((tr: any, row) =>
        [...tr.children].map((cell: any, column) => {
          const box = cell.getBoundingClientRect();
          return { at: `row ${row} cell ${column}`, left: box.left, right: box.right, width: box.width, height: box.height, text: cell.innerText.trim() };
        }),
      ),
    first,
  );
}

function assertOnScreen(cells: Awaited<ReturnType<typeof cellsOf>>, width: number, what: string) {
  assert.ok(cells.length > 0, `${what}: no rows`);
  for (const c of cells) {
    assert.ok(c.width > 0 && c.height > 0, `${what}, ${c.at}: not drawn (${JSON.stringify(c)})`);
    assert.ok(c.left >= 0 && c.right <= width + 0.5, `${what}, ${c.at}: off screen (${JSON.stringify(c)})`);
    assert.notEqual(c.text, '', `${what}, ${c.at}: no text`);
  }
}

/**
 * The admin UI's details in Debian's chromium, on data the provider simulator produced: the 390 px
 * layout of the conversations list, the agent's recent messages and the call's latency chart; the
 * favicon; the call page's recording; a voicemail's preview and a sent voice message's text.
 */
describe('admin UI details: phone-width tables, favicon, the recording player, voicemail and voice message text', () => {
  let t: TestGateway;
  let browser: Browser;
  let page: Page;
  let streamSid = '';
  let relaySid = '';
  let voiceMessageSid = '';
  const problems: string[] = [];
  const missing: string[] = [];
  const admin = async (path: string) => {
    const res = await t.call('GET', path, { token: t.orchestratorToken });
    assert.equal(res.status, 200, `${path}: ${await res.clone().text()}`);
    return (await res.json()) as any;
  };
  /** Opens an admin page and waits until it has loaded its data. */
  const open = async (path: string) => {
    await page.goto(`${t.url}${path}`);
    await page.locator('h1').first().waitFor();
    await page.locator('.loading').waitFor({ state: 'detached' });
  };

  before(async () => {
    t = await startTestGateway({ VOICE_MODE: 'relay' });
    const agent = await provisionAgent(t, 'ui-details', ['sms', 'voice'], { greeting: 'This is the details agent.' });
    const token = agent.securityToken;
    // Nobody answers the agent's turns: an inbound call is an answering machine, and leaves a voicemail.
    const voicemail = await t.sim.phone.call({ agentId: 'ui-details', from: CALLER, to: agent.channels.voice!.address, mode: 'relay', script: { steps: [LEFT_WORDS] } });
    assert.deepEqual((await voicemail.done).errors, []);
    // A voice message: a call that plays the synthesised text.
    t.sim.phone.onOutbound(LISTENER, { ...FAST });
    const sent = await t.call('POST', '/api/v1/send-voice-message', { token, json: { to: LISTENER, text: SPOKEN } });
    assert.equal(sent.status, 200, await sent.clone().text());
    voiceMessageSid = ((await sent.json()) as { callSid: string }).callSid;
    await t.sim.phone.get(voiceMessageSid)!.done;
    // A recorded streamed call: the callee answers the greeting once.
    t.sim.deepgram.registerPhrase('sounds good');
    t.sim.phone.onOutbound(CALLEE, { steps: ['sounds good'], ...FAST });
    const made = await t.call('POST', '/api/v1/make-call', { token, json: { to: CALLEE, mode: 'stream', record: true, greeting: 'This is the details agent calling about your delivery window.' } });
    assert.equal(made.status, 200, await made.clone().text());
    streamSid = ((await made.json()) as { callSid: string }).callSid;
    assert.deepEqual((await t.sim.phone.get(streamSid)!.done).errors, []);
    // A recorded relay call: the provider records it and reports its length in whole seconds.
    t.sim.phone.onOutbound(ANSWERER, { steps: ['Fine, thanks.'], ...FAST });
    const relayed = await t.call('POST', '/api/v1/make-call', { token, json: { to: ANSWERER, mode: 'relay', record: true } });
    assert.equal(relayed.status, 200, await relayed.clone().text());
    relaySid = ((await relayed.json()) as { callSid: string }).callSid;
    assert.deepEqual((await t.sim.phone.get(relaySid)!.done).errors, []);
    // SMS last, so they are the newest messages and conversations.
    for (const [i, customer] of CUSTOMERS.entries()) {
      assert.equal((await t.sim.inbound.sms({ agentId: 'ui-details', from: customer, to: agent.channels.sms!.address, body: `Is order ${i + 1} on its way to the depot on the corner?` })).status, 200);
      const reply = await t.call('POST', '/api/v1/send-message', { token, json: { channel: 'sms', to: customer, body: `Yes, order ${i + 1} left this morning.` } });
      assert.equal(reply.status, 200, await reply.clone().text());
    }
    for (const sid of [streamSid, relaySid]) {
      await eventuallyPasses(
        async () => {
          const call = await admin(`/admin/api/calls/${sid}`);
          assert.ok(call.recording && call.ledger, `recording: ${JSON.stringify(call.recording)}, ledger: ${JSON.stringify(call.ledger)}`);
        },
        { timeoutMs: 20_000, intervalMs: 100, message: `call ${sid} to be recorded and have its ledger` },
      );
    }

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    watchPage(page, problems);
    page.on('response', (res) => {
      if (res.status() === 404) missing.push(`${res.request().method()} ${new URL(res.url()).pathname}`);
    });
    page.on('console', (m) => {
      if (m.type() === 'error' && /404/.test(m.text())) missing.push(m.text());
    });
    await page.goto(`${t.url}/admin/dashboard`);
    await page.getByLabel('Orchestrator token').fill(t.orchestratorToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Pending dead letters' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the dashboard and the agent page preview a voicemail by the caller’s words, not the greeting', async () => {
    const letter = page.locator('ul.letters li').filter({ hasText: 'voicemail' });
    await letter.getByText(LEFT_WORDS, { exact: false }).waitFor();
    assert.doesNotMatch(await letter.innerText(), /leave a message/);
    await open('/admin/agents/ui-details');
    const listed = page.locator('section[aria-labelledby="letters-title"] li').filter({ hasText: 'voicemail' });
    await listed.getByText(LEFT_WORDS, { exact: false }).waitFor();
  });

  it('a sent voice message shows the text it spoke, in its conversation and on its call page', async () => {
    const call = await admin(`/admin/api/calls/${voiceMessageSid}`);
    assert.deepEqual(
      call.transcript.map((l: { role: string; text: string }) => [l.role, l.text]),
      [['agent', SPOKEN]],
    );
    const { conversations } = await admin('/admin/api/agents/ui-details/conversations');
    const conversation = conversations.find((c: any) => c.counterparts.some((p: any) => p.address === LISTENER));
    await open(`/admin/agents/ui-details/conversations/${conversation.conversationId}`);
    const item = page.locator('.timeline > li[data-kind="call"]');
    assert.equal(await item.getByText(SPOKEN).isVisible(), true, 'the text is shown, not folded away');
    assert.doesNotMatch(await item.innerText(), /No transcript/);
    await open(`/admin/calls/${voiceMessageSid}`);
    await page.locator('.lines .line').getByText(SPOKEN).waitFor();
  });

  it('the call page: the text joins with spaces, and the player knows the recording’s length, the one the page states, before it plays', async () => {
    for (const sid of [relaySid, streamSid]) {
      const call = await admin(`/admin/api/calls/${sid}`);
      await open(`/admin/calls/${sid}`);
      const recording = page.locator('section[aria-labelledby="recording-title"]');
      await recording.getByRole('link', { name: 'Download' }).waitFor();
      const text = await page.locator('main').innerText();
      assert.doesNotMatch(text, /[a-z)]\.Download/, `${call.mode}: a space before "Download"`);
      assert.doesNotMatch(text, /provider\.Download/);
      // No load() and no play: what the page's own markup asks the browser to fetch.
      await page.waitForFunction(() => ((globalThis as any).document.querySelector('audio.recording')?.readyState ?? 0) >= 1, undefined, { timeout: 10_000 });
      const seconds = await page.locator('audio.recording').evaluate((el: any) => el.duration as number);
      assert.ok(Math.abs(seconds - call.recording.durationSeconds) < 0.05, `${call.mode}: the player reads ${seconds} s, the call says ${call.recording.durationSeconds} s`);
      await recording.getByText(`${call.recording.durationSeconds.toFixed(1)} s, stored`).waitFor();
    }
  });

  it('at 390 px the conversations list, the recent messages and the latency chart keep every cell on screen and readable', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await open('/admin/agents/ui-details/conversations');
    assertOnScreen(await cellsOf(page, 'table.conversations tbody tr'), 390, 'conversations');
    await screenshot(page, 'details-01-phone-conversations');
    await open('/admin/agents/ui-details');
    await page.getByRole('heading', { name: 'Recent messages' }).waitFor();
    const messages = page.locator('section[aria-labelledby="messages-title"] tbody tr');
    assert.ok((await messages.count()) >= 3);
    assertOnScreen(await cellsOf(page, 'section[aria-labelledby="messages-title"] tbody tr'), 390, 'recent messages');
    await screenshot(page, 'details-02-phone-agent');
    await open(`/admin/calls/${streamSid}`);
    await page.locator('table.waterfall tbody').first().waitFor();
    // Every label and figure of the chart: drawn inside the viewport, none cut (its text fits its box).
    const labels = await page.locator('table.waterfall th, table.waterfall td.value').evaluateAll((els) =>
      els.map((el: any) => {
        const box = el.getBoundingClientRect();
        return { text: el.innerText.trim(), left: box.left, right: box.right, width: box.width, scrollWidth: el.scrollWidth, clientWidth: el.clientWidth };
      }),
    );
    assert.ok(labels.length >= 3, JSON.stringify(labels));
    for (const l of labels) {
      assert.notEqual(l.text, '', JSON.stringify(l));
      assert.ok(l.width > 0 && l.left >= 0 && l.right <= 390.5, `off screen: ${JSON.stringify(l)}`);
      assert.ok(l.scrollWidth <= l.clientWidth + 1, `clipped: ${JSON.stringify(l)}`);
    }
    const wrap = await page.locator('table.waterfall').evaluate((el: any) => ({ scroll: el.parentElement.scrollWidth, client: el.parentElement.clientWidth }));
    assert.ok(wrap.scroll <= wrap.client + 1, `the chart scrolls sideways: ${JSON.stringify(wrap)}`);
    const tracks = await page.locator('table.waterfall .track').evaluateAll((els) => els.map((el: any) => el.getBoundingClientRect().width));
    assert.ok(tracks.every((w) => w > 100), `each bar's track keeps a useful width: ${tracks}`);
    await screenshot(page, 'details-03-phone-call');
  });

  it('no page load asked for something missing (the favicon is served), and nothing broke the CSP', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    for (const path of ['/admin/dashboard', '/admin/agents/ui-details', `/admin/calls/${streamSid}`, '/admin/api-docs']) {
      await page.goto(`${t.url}${path}`);
      await page.locator('h1').first().waitFor();
    }
    const icon = await page.evaluate(() => (globalThis as any).document.querySelector('link[rel="icon"]')?.href as string | undefined);
    assert.ok(icon, 'the page links its icon');
    const res = await t.call('GET', new URL(icon).pathname);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/svg+xml');
    assert.deepEqual(missing, []);
    assert.deepEqual(problems, []);
  });
});
