import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '@switchboard/runtime';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** New York City: America/New_York, the US rule (8:00–21:00). */
const NEW_YORK = '+12125550173';

/** The time the server's agent operations and its contact policy read, set by the test. */
class SetClock implements Clock {
  at = new Date();
  now(): Date {
    return new Date(this.at);
  }
}

describe("calling hours in the recipient's time (CALLING_HOURS=enforce, the server's clock set by the test)", () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  const clock = new SetClock();

  before(async () => {
    t = await startTestGateway({ CALLING_HOURS: 'enforce', VOICE_MODE: 'relay' }, undefined, { clock });
    agent = await provisionAgent(t, 'hours-caller', ['voice', 'sms']);
  });
  after(async () => {
    await t.close();
  });

  const call = () => t.call('POST', '/api/v1/make-call', { token: agent.securityToken, json: { to: NEW_YORK, greeting: 'Hello from the hours test.' } });

  it("a call at 22:30 the callee's time is refused with when the window opens, and nothing reaches the provider", async () => {
    // 22:30 in New York on a Wednesday (EST, UTC−5): the window opens at 8:00 the next morning, 13:00 UTC.
    clock.at = new Date('2026-12-02T03:30:00Z');
    const placed = t.sim.calls().length;
    const res = await call();
    const body = (await res.json()) as { code: string; error: string; details: { opensAt: string; zones: string[] }[] };
    assert.equal(res.status, 403, JSON.stringify(body));
    assert.equal(body.code, 'OUTSIDE_CALLING_HOURS');
    assert.equal(body.details[0]!.opensAt, '2026-12-02T13:00:00.000Z');
    assert.deepEqual(body.details[0]!.zones, ['America/New_York']);
    assert.match(body.error, /try again from 2026-12-02T13:00:00.000Z/);
    assert.equal(t.sim.calls().length, placed, 'no call was placed at the provider');
    // An ordinary text is not held to calling hours.
    const text = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: NEW_YORK, body: 'Your order is ready.' } });
    assert.equal(text.status, 200, await text.clone().text());
  });

  it('the same call at 10:00 its time goes out', async () => {
    clock.at = new Date('2026-12-02T15:00:00Z');
    t.sim.phone.onOutbound(NEW_YORK, { steps: ['Thanks, bye.'], replyTimeoutMs: 4000 });
    const res = await call();
    assert.equal(res.status, 200, await res.clone().text());
    const { callSid } = (await res.json()) as { callSid: string };
    const phone = await t.sim.phone.get(callSid)!.done;
    assert.equal(phone.turns[0]!.agent.text, 'Hello from the hours test.');
  });

  it("a text marked marketing keeps calling hours too; the operator's waiver, with its reason, lets the agent call and send it, until lifted", async () => {
    clock.at = new Date('2026-12-02T03:30:00Z');
    const promo = () => t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: NEW_YORK, body: 'Sale ends tonight', marketing: true } });
    assert.equal(((await (await promo()).json()) as { code: string }).code, 'OUTSIDE_CALLING_HOURS');
    const settings = (json: unknown) => t.call('POST', `/admin/api/agents/${agent.agentId}/contact-settings`, { token: t.orchestratorToken, json });
    assert.equal((await settings({ callingHoursOverride: { reason: '' } })).status, 400, 'a waiver needs its reason');
    const waived = await settings({ callingHoursOverride: { reason: 'night-shift nurses asked to be called after their shift' } });
    const body = (await waived.json()) as { callingHoursOverride: { reason: string; setAt: string } | null };
    assert.equal(waived.status, 200, JSON.stringify(body));
    assert.equal(body.callingHoursOverride?.reason, 'night-shift nurses asked to be called after their shift');
    assert.equal(body.callingHoursOverride?.setAt, clock.at.toISOString(), 'the waiver records when it was set');
    assert.equal((await promo()).status, 200, 'a marketing text at 22:30 under the waiver');
    t.sim.phone.onOutbound(NEW_YORK, { steps: ['Thanks, bye.'], replyTimeoutMs: 4000 });
    const placed = await call();
    assert.equal(placed.status, 200, await placed.clone().text());
    await t.sim.phone.get(((await placed.json()) as { callSid: string }).callSid)!.done;
    // Other settings leave it as it is; null lifts it.
    assert.equal(((await (await settings({ listUnsubscribe: false })).json()) as typeof body).callingHoursOverride?.reason, 'night-shift nurses asked to be called after their shift');
    assert.equal(((await (await settings({ callingHoursOverride: null })).json()) as typeof body).callingHoursOverride, null);
    assert.equal(((await (await call()).json()) as { code: string }).code, 'OUTSIDE_CALLING_HOURS');
  });
});
