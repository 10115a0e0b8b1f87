import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.js';
import { echoReply, startCallAnswerer, startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const CALLER = '+14155550131';
const CALLEE = '+14155550849';
const CUSTOMER = '+14155550132';

interface Item {
  kind: string;
  id: string;
  direction: string;
  status: string;
  body?: string;
  transcript?: unknown[];
}
interface Turn {
  turn: number;
  bargeIns: unknown[];
}

/** axe-core's serious and critical findings on the page as it stands. */
async function axeFindings(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = (await page.evaluate(() => (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] }).then((r: any) => r.violations))) as {
    id: string;
    impact: string | null;
    nodes: { target: unknown[] }[];
  }[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(' ')}`);
}

/**
 * The agent's activity pages in Debian's chromium, on data the provider simulator produced: a
 * conversation across SMS and voice, the calls list and a call's waterfall with a barge-in, and the
 * callback delivery log with a replay.
 */
describe('admin UI: conversations, calls and the callback delivery log in a real browser', () => {
  let t: TestGateway;
  let browser: Browser;
  let page: Page;
  let voiceReceiver: CallbackReceiver;
  let hooksReceiver: CallbackReceiver;
  let relaySid = '';
  let streamSid = '';
  let conversationId = '';
  const problems: string[] = [];
  const shot = (name: string) => screenshot(page, name);
  const admin = async (path: string) => {
    const res = await t.call('GET', path, { token: t.orchestratorToken });
    assert.equal(res.status, 200, `${path}: ${await res.clone().text()}`);
    return (await res.json()) as any;
  };
  /** Polls the admin API until `check` holds of what it answers. */
  const until = async <T>(path: string, check: (body: any) => T | undefined | false, what: string): Promise<T> =>
    (await eventually(async () => check(await admin(path)), { timeoutMs: 20_000, intervalMs: 100, message: what })) as T;

  before(async () => {
    t = await startTestGateway({ VOICE_MODE: 'relay', CALLBACK_RETRY_SCHEDULE: '0,100,100' });
    // ui-voice: SMS and voice with one customer (one conversation), and a streamed call with a barge-in.
    const voice = await provisionAgent(t, 'ui-voice', ['sms', 'voice'], { greeting: 'Hello from the UI agent.' });
    voiceReceiver = await startCallAnswerer((callbackUrl) => t.call('PUT', '/api/v1/callback-url', { token: voice.securityToken, json: { callbackUrl } }), echoReply);
    assert.equal((await t.sim.inbound.sms({ agentId: 'ui-voice', from: CALLER, to: voice.channels.sms!.address, body: 'Are you open today?' })).status, 200);
    const sent = await t.call('POST', '/api/v1/send-message', { token: voice.securityToken, json: { channel: 'sms', to: CALLER, body: 'Yes, until six. Call us!' } });
    assert.equal(sent.status, 200, await sent.clone().text());
    const relay = await t.sim.phone.call({ agentId: 'ui-voice', from: CALLER, to: voice.channels.voice!.address, mode: 'relay', script: { steps: ['What time do you open?', 'Thanks, bye'], stayOnLine: true } });
    relaySid = (await relay.done).callSid;
    for (const phrase of ['tell me something long', 'stop please']) t.sim.deepgram.registerPhrase(phrase);
    t.sim.phone.onOutbound(CALLEE, { steps: ['tell me something long', { kind: 'say', text: 'stop please', bargeIn: true, afterMs: 1200 }], replyTimeoutMs: 8000 });
    const made = await t.call('POST', '/api/v1/make-call', { token: voice.securityToken, json: { to: CALLEE, mode: 'stream', record: true, greeting: 'This is the UI agent.' } });
    assert.equal(made.status, 200, await made.clone().text());
    streamSid = ((await made.json()) as { callSid: string }).callSid;
    const streamed = await t.sim.phone.get(streamSid)!.done;
    assert.deepEqual(streamed.errors, []);
    assert.ok(streamed.clears.length >= 1, 'the caller barged in');
    for (const sid of [relaySid, streamSid]) await until(`/admin/api/calls/${sid}`, (c) => c.summary && c.ledger, `the ledger of ${sid}`);
    await until(`/admin/api/calls/${streamSid}`, (c) => c.recording, `the recording of ${streamSid}`);

    // ui-hooks: a callback URL that fails each event's first post, then takes it.
    let hooksSecret: string | undefined;
    hooksReceiver = await startCallbackReceiver(() => hooksSecret);
    hooksReceiver.respond = (_event, n) => (n === 1 ? { status: 500, body: 'busy, try later' } : { status: 204 });
    const hooks = await provisionAgent(t, 'ui-hooks', ['sms']);
    const hooked = await t.call('PUT', '/api/v1/callback-url', { token: hooks.securityToken, json: { callbackUrl: hooksReceiver.url } });
    hooksSecret = ((await hooked.json()) as { signingSecret: string }).signingSecret;
    assert.equal((await t.sim.inbound.sms({ agentId: 'ui-hooks', from: CUSTOMER, to: hooks.channels.sms!.address, body: 'ping' })).status, 200);
    await until('/admin/api/agents/ui-hooks/callback-log', (log) => log.attempts.length === 2, 'two attempts logged');

    await provisionAgent(t, 'ui-quiet', ['sms']);

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    watchPage(page, problems);
    await page.goto(`${t.url}/admin/agents/ui-voice`);
    await page.getByLabel('Orchestrator token').fill(t.orchestratorToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await voiceReceiver?.close();
    await hooksReceiver?.close();
  });

  it('the admin API reads conversations and calls as the agent API does, with the session or the orchestrator token', async () => {
    const list = await admin('/admin/api/agents/ui-voice/conversations');
    const viaTeam = (await (await t.call('GET', '/api/v1/conversations?agentId=ui-voice', { token: t.teamToken })).json()) as any;
    assert.deepEqual(list, viaTeam);
    conversationId = list.conversations.find((c: any) => c.counterparts.some((p: any) => p.address === CALLER)).conversationId;
    const timeline = await admin(`/admin/api/agents/ui-voice/conversations/${conversationId}`);
    assert.deepEqual(timeline, (await (await t.call('GET', `/api/v1/conversations/${conversationId}?agentId=ui-voice`, { token: t.teamToken })).json()) as any);
    assert.deepEqual(
      new Set(timeline.items.map((i: Item) => `${i.kind}:${i.direction}`)),
      new Set(['message:inbound', 'message:outbound', 'call:inbound']),
      'SMS in, SMS out and the call from the same number are one conversation',
    );
    const calls = await admin('/admin/api/calls?agentId=ui-voice');
    assert.deepEqual(calls.calls.map((c: any) => c.callId), [streamSid, relaySid]);
    assert.deepEqual(await admin(`/admin/api/calls/${streamSid}`), await (await t.call('GET', `/api/v1/calls/${streamSid}`, { token: t.teamToken })).json());
    assert.equal((await admin('/admin/api/agents/ui-hooks/callback-log')).attempts[0].eventType, 'message.inbound');
    // Bad input and unknown things get the contract's errors; agent tokens are refused.
    for (const [path, status, code] of [
      ['/admin/api/agents/nobody/conversations', 404, 'NOT_FOUND'],
      ['/admin/api/agents/ui-voice/conversations/not-an-id', 400, 'VALIDATION_FAILED'],
      ['/admin/api/agents/ui-voice/conversations?agentId=ui-hooks', 400, 'BAD_REQUEST'],
      ['/admin/api/calls?limit=0', 400, 'VALIDATION_FAILED'],
      ['/admin/api/calls/CA!bad', 400, 'VALIDATION_FAILED'],
      [`/admin/api/calls/CA${'0'.repeat(32)}`, 404, 'NOT_FOUND'],
    ] as const) {
      const res = await t.call('GET', path, { token: t.orchestratorToken });
      const body = (await res.json()) as { code: string };
      assert.deepEqual([res.status, body.code], [status, code], path);
    }
    assert.equal((await t.call('GET', '/admin/api/calls', { token: t.teamToken })).status, 403);
    assert.equal((await t.call('GET', '/admin/api/calls')).status, 401);
  });

  it('from the agent page, the conversation: SMS and the call across channels, delivery states, the transcript expandable', async () => {
    await page.getByRole('heading', { name: /ui-voice/ }).waitFor();
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.getByRole('heading', { name: /^Conversations/ }).waitFor();
    await page.getByRole('link', { name: CALLER }).click();
    await page.getByRole('heading', { name: `Conversation with ${CALLER} ${conversationId}` }).waitFor();
    const { items } = (await admin(`/admin/api/agents/ui-voice/conversations/${conversationId}`)) as { items: Item[] };
    const shown = page.locator('.timeline > li');
    await shown.nth(items.length - 1).waitFor();
    assert.equal(await shown.count(), items.length, 'one timeline entry per message and call');
    assert.deepEqual(await shown.evaluateAll((els) => els.map((e) => e.getAttribute('data-kind'))), items.map((i) => i.kind), 'newest first, as the API orders them');
    await page.getByText('Are you open today?').waitFor();
    const out = items.find((i) => i.kind === 'message' && i.direction === 'outbound')!;
    await shown.filter({ hasText: 'Yes, until six. Call us!' }).getByText(`Delivery: ${out.status}`).waitFor();
    const call = page.locator('.timeline > li[data-kind="call"]');
    const transcript = call.getByText(/^Transcript \(\d+ lines\)$/);
    const lines = items.find((i) => i.kind === 'call')!.transcript!.length;
    assert.equal(await transcript.textContent(), `Transcript (${lines} lines)`);
    assert.equal(await call.getByText('What time do you open?', { exact: true }).isVisible(), false, 'the transcript starts collapsed');
    await transcript.click();
    await call.getByText('What time do you open?', { exact: true }).waitFor();
    await call.getByText('You said: What time do you open?').waitFor();
    assert.deepEqual(await axeFindings(page), []);
    await shot('activity-01-conversation');
    await call.getByRole('link', { name: /Call page/ }).click();
    await page.getByRole('heading', { name: `Call from ${CALLER} ${relaySid}` }).waitFor();
  });

  it('the calls list and the call page: summary, the transcript with the interrupted reply, a waterfall bar per turn, the barge-in', async () => {
    await page.goto(`${t.url}/admin/agents/ui-voice`);
    const recent = page.getByRole('region', { name: 'Recent calls' }).getByRole('link');
    await recent.first().waitFor();
    assert.deepEqual((await recent.evaluateAll((els) => els.map((e) => e.getAttribute('href')))).sort(), [`/admin/calls/${relaySid}`, `/admin/calls/${streamSid}`].sort(), "the agent page's recent calls open their call pages");
    await page.locator('.subpages').getByRole('link', { name: 'Calls' }).click();
    await page.getByRole('heading', { name: /^Calls ui-voice/ }).waitFor();
    const rows = page.locator('table.calls tbody tr');
    await rows.nth(1).waitFor();
    assert.equal(await rows.count(), 2);
    await rows.filter({ hasText: CALLEE }).getByRole('link').click();
    await page.getByRole('heading', { name: `Call to ${CALLEE} ${streamSid}` }).waitFor();
    const call = await admin(`/admin/api/calls/${streamSid}`);
    const turns: Turn[] = [call.ledger.greeting, ...call.ledger.turns];
    await page.locator('[data-stat="turns"] .value').filter({ hasText: String(call.summary.turns) }).waitFor();
    await page.locator('[data-stat="status"] .value').filter({ hasText: 'completed' }).waitFor();
    // The waterfall: one group per turn (the greeting first), each with its bars.
    const groups = page.locator('table.waterfall tbody');
    assert.deepEqual(await groups.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-turn')))), turns.map((turn) => turn.turn));
    await groups.first().getByText(/^Greeting: first reply frame after/).waitFor();
    for (const turn of call.ledger.turns as Turn[]) {
      const group = page.locator(`table.waterfall tbody[data-turn="${turn.turn}"]`);
      for (const part of ['transcription', 'agent', 'tts', 'switchboard']) assert.ok((await group.locator(`.bar.${part}`).count()) >= 1, `turn ${turn.turn} has a ${part} bar`);
      const width = await group.locator('.bar.agent').first().evaluate((el) => (el as any).getBoundingClientRect().width);
      assert.ok(width >= 1, `the agent bar of turn ${turn.turn} is drawn (${width}px)`);
      assert.equal(await group.locator('tr.barge-in').count(), turn.bargeIns.length);
    }
    const bargedIn = page.locator('table.waterfall tbody[data-turn="1"] tr.barge-in');
    await bargedIn.getByText(/reply stopped in/).waitFor();
    await bargedIn.locator('.marker').waitFor();
    // The transcript, the interrupted reply marked.
    const interrupted = page.locator('.lines .line.interrupted');
    assert.equal(await interrupted.count(), call.transcript.filter((l: { interrupted: boolean }) => l.interrupted).length);
    await interrupted.getByText(/^Here is a rather long answer/).waitFor();
    await interrupted.getByText('interrupted', { exact: true }).waitFor();
    await page.locator('.lines .line').filter({ hasText: 'This is the UI agent.' }).getByText('Greeting').waitFor();
    // The recording's player, on the admin route the session cookie opens: the browser loads the WAV and knows its length.
    const player = page.locator('audio.recording');
    assert.equal(await player.getAttribute('src'), `/admin/api/calls/${streamSid}/recording`);
    const seconds = await player.evaluate(
      (el: any) =>
        new Promise<number>((resolve, reject) => {
          el.addEventListener('loadedmetadata', () => resolve(el.duration), { once: true });
          el.addEventListener('error', () => reject(new Error(`the player could not load the recording: ${el.error?.message ?? el.error?.code}`)), { once: true });
          el.preload = 'metadata';
          el.load();
        }),
    );
    assert.ok(Math.abs(seconds - call.recording.durationSeconds) < 0.1, `the player reads ${seconds} s, the call says ${call.recording.durationSeconds} s`);
    assert.deepEqual(await axeFindings(page), []);
    await shot('activity-02-call-page');
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.deepEqual(await axeFindings(page), [], 'dark scheme');
    await shot('activity-03-call-page-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    // Every agent's calls, from the header.
    await page.getByRole('navigation', { name: 'Admin pages' }).getByRole('link', { name: 'Calls' }).click();
    await page.getByRole('heading', { name: /^Calls every agent/ }).waitFor();
    await page.locator('table.calls tbody tr').filter({ hasText: CALLER }).getByRole('link', { name: 'ui-voice' }).waitFor();
  });

  it('the callback delivery log: each attempt with its status, latency and excerpt, a confirmed replay of one event and of a time range', async () => {
    await page.goto(`${t.url}/admin/agents/ui-hooks`);
    await page.getByRole('link', { name: 'Callback delivery log' }).click();
    await page.getByRole('heading', { name: /^Callback delivery log/ }).waitFor();
    const rows = page.locator('table.attempts tbody tr');
    await rows.nth(1).waitFor();
    assert.equal(await rows.count(), 2);
    const failed = rows.filter({ hasText: 'HTTP 500' });
    await failed.getByText('retrying').waitFor();
    await failed.getByText('busy, try later').waitFor();
    await failed.getByText('message.inbound').waitFor();
    await rows.filter({ hasText: 'HTTP 204' }).getByText('delivered').waitFor();
    const log = await admin('/admin/api/agents/ui-hooks/callback-log');
    await rows.first().getByText(`${log.attempts[0].latencyMs} ms`).waitFor();
    await page.getByText(/Working/).waitFor();
    const replay = page.getByRole('button', { name: `Replay message.inbound ${log.attempts[0].eventId}` });
    assert.equal(await page.locator('table.attempts').getByRole('button', { name: /^Replay / }).count(), 1, 'one replay button per event');
    // Dismissing the confirmation does nothing.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await replay.click();
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(hooksReceiver.posts.length, 2, 'no post without confirmation');
    let question = '';
    page.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await replay.click();
    await page.getByRole('status').filter({ hasText: /^Replayed message\.inbound .*: 1 event queued for delivery/ }).waitFor();
    assert.match(question, /again\?/);
    // The replay's attempt shows up (the page polls), and the receiver got the event a third time.
    await rows.nth(2).waitFor({ timeout: 20_000 });
    assert.equal(hooksReceiver.posts.length, 3);
    assert.equal(await rows.count(), 3);
    await rows.first().getByText('HTTP 204').waitFor();
    // A time range: the default (the last hour) holds the one event; a range before it holds none; a backwards one is refused.
    const range = page.getByRole('form', { name: 'Replay a time range' });
    page.once('dialog', (dialog) => void dialog.accept());
    await range.getByRole('button', { name: 'Replay range' }).click();
    await page.getByRole('status').filter({ hasText: /^Replayed the range: 1 event queued for delivery/ }).waitFor();
    await rows.nth(3).waitFor({ timeout: 20_000 });
    assert.equal(hooksReceiver.posts.length, 4);
    await range.getByLabel('From').fill('2020-01-01T00:00');
    await range.getByLabel('Until').fill('2020-01-02T00:00');
    page.once('dialog', (dialog) => void dialog.accept());
    await range.getByRole('button', { name: 'Replay range' }).click();
    await page.getByRole('status').filter({ hasText: /^No event was first posted in that range/ }).waitFor();
    await range.getByLabel('From').fill('2020-01-03T00:00');
    await range.getByRole('button', { name: 'Replay range' }).click();
    await page.getByRole('status').filter({ hasText: /^Pick a "From" time before the "Until" time/ }).waitFor();
    assert.equal(hooksReceiver.posts.length, 4, 'nothing posted for an empty or backwards range');
    assert.deepEqual(await axeFindings(page), []);
    await shot('activity-04-callback-log');
  });

  it('says so when there is nothing yet, and what to do when something cannot be loaded', async () => {
    await page.goto(`${t.url}/admin/agents/ui-quiet/conversations`);
    await page.getByText(/^No conversations yet/).waitFor();
    await page.goto(`${t.url}/admin/agents/ui-quiet/calls`);
    await page.getByText(/^No calls yet for ui-quiet/).waitFor();
    await page.goto(`${t.url}/admin/agents/ui-quiet/callbacks`);
    await page.getByText(/^No attempts yet/).waitFor();
    await page.getByText(/Callback URL: none set/).waitFor();
    await page.goto(`${t.url}/admin/calls/CA${'0'.repeat(32)}`);
    await page.getByRole('heading', { name: /^Could not load call/ }).waitFor();
    await page.getByRole('alert').filter({ hasText: /No call/ }).waitFor();
    await page.getByRole('link', { name: 'go back to the calls' }).waitFor();
    await page.goto(`${t.url}/admin/agents/nobody/conversations`);
    await page.getByRole('alert').filter({ hasText: /No agent nobody/ }).waitFor();
    await shot('activity-05-not-found');
  });

  it('works on a phone-sized screen; nothing broke the CSP', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    let shown = 0;
    for (const path of [`/admin/calls/${streamSid}`, `/admin/agents/ui-voice/conversations/${conversationId}`, '/admin/agents/ui-hooks/callbacks', '/admin/agents/ui-voice/calls']) {
      await page.goto(`${t.url}${path}`);
      await page.locator('h1').first().waitFor();
      await page.locator('.loading').waitFor({ state: 'detached' });
      const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);
      if (overflow > 1) console.log(await page.evaluate(() => [...(globalThis as any).document.querySelectorAll('*')].filter((e: any) => e.getBoundingClientRect().right > 400 && e.parentElement.getBoundingClientRect().right <= 400).slice(0, 8).map((e: any) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`).join('\n')));
      assert.ok(overflow <= 1, `${path}: no horizontal scrolling of the page (${overflow}px)`);
      await shot(`activity-06-phone-${['call', 'conversation', 'callbacks', 'calls'][shown++]}`);
    }
    assert.deepEqual(problems, []);
  });
});
