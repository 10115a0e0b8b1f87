import { randomUUID } from 'node:crypto';
import { BoundedMap } from '../bounded-map.js';
import { postTelnyxCallEvent } from '../telnyx/telnyx-call-events.js';
import { callControlId, TELNYX_CALL_EVENTS } from '../telnyx/telnyx-calls.js';
import { twilioSid } from '../ids.js';
import type { SimulatorState } from '../simulator-state.js';
import { observeCalls } from '../twilio/calls-observer.js';
import { callRequestParams, sendCallWebhook } from '../twilio/calls-webhooks.js';
import type { SimCall, SimCallUpdate } from '../types.js';
import { webhookUrl } from '../webhook-delivery.js';
import { FrameClock } from './frame-clock.js';
import { phoneSettings, rewriteUrl, type PhoneContext } from './phone-context.js';
import { LivePhoneCall } from './phone-call.js';
import type { OutboundMatch, PacingStats, PhoneCall, PhoneCallOptions, PhoneOptions, PhoneScript, SimulatorPhone } from './phone-types.js';

const ENDED = new Set(['completed', 'busy', 'failed', 'no-answer', 'canceled']);
const ENDPOINT = /^(\+|client:|sip:)/;

/** The agentId in a gateway webhook URL (`…/webhooks/:agentId/…`). */
function agentIdOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const match = /\/webhooks\/([^/]+)\//.exec(new URL(url).pathname);
    return match ? decodeURIComponent(match[1]!) : undefined;
  } catch {
    return undefined;
  }
}

/** The phone plus what the simulator needs to wire it: reset and close. */
export interface SimulatorPhoneControl extends SimulatorPhone {
  /** Hangs up every live call without callbacks, forgets calls and outbound rules. */
  reset(): void;
  close(): void;
}

/**
 * The simulated phone network's far end: it places inbound calls to the gateway (signed voice
 * webhook, then the TwiML answered) and answers the calls the gateway places through Calls.json.
 */
export function createSimulatorPhone(state: SimulatorState, options: PhoneOptions = {}): SimulatorPhoneControl {
  const settings = phoneSettings(options);
  const ctx: PhoneContext = { state, settings, clock: new FrameClock(settings.lateFrameMs) };
  const calls = new BoundedMap<string, LivePhoneCall>(state.settings.recordLimit);
  const live = new Set<LivePhoneCall>();
  let rules: Array<{ match: OutboundMatch; script: PhoneScript }> = [];

  function track(call: LivePhoneCall): LivePhoneCall {
    calls.set(call.callSid, call);
    live.add(call);
    call.onEnd(() => live.delete(call));
    return call;
  }

  function outboundScript(call: SimCall): PhoneScript {
    const agentId = agentIdOf(call.url) ?? agentIdOf(call.statusCallback);
    const byNumber = rules.findLast((r) => ENDPOINT.test(r.match) && r.match === call.to);
    const byAgent = rules.findLast((r) => !ENDPOINT.test(r.match) && r.match !== '*' && r.match === agentId);
    const any = rules.findLast((r) => r.match === '*');
    return (byNumber ?? byAgent ?? any)?.script ?? settings.outbound;
  }

  /** Rings the callee of a call the gateway created, then answers (or not) as its script says. */
  function ringOutbound(sim: SimCall): void {
    const script = outboundScript(sim);
    const call = track(new LivePhoneCall(ctx, sim, script));
    call.setStatus('queued', 'initiated', 'initiated');
    const answer = script.answer ?? 'answer';
    call.later(settings.dialMs, () => {
      if (answer === 'busy' || answer === 'failed') return call.end(answer, 'not-answered');
      call.setStatus('ringing', 'ringing');
      const timeoutMs = (Number(sim.params['Timeout']) || 60) * 1000;
      const ringMs = script.ringMs ?? settings.ringMs;
      // Twilio gives up after the call's Timeout (60 s by default).
      if (answer === 'no-answer' || ringMs > timeoutMs) return call.later(Math.min(ringMs, timeoutMs), () => call.end('no-answer', 'not-answered'));
      call.later(ringMs, () => {
        if (sim.twiml !== undefined) return call.answer({ twiml: sim.twiml });
        if (sim.url !== undefined) return call.answer({ url: sim.url, method: sim.method ?? 'POST' });
        call.error('outbound: the call has neither Url nor Twiml (an ApplicationSid is not simulated)');
        call.end('failed', 'error');
      });
    });
  }

  function updated(sim: SimCall, update: SimCallUpdate): void {
    const call = calls.get(sim.sid);
    if (!call || call.ended) return;
    if (update.status && ENDED.has(sim.status)) {
      call.end(sim.status, 'api');
      return;
    }
    if (update.answer && sim.twiml !== undefined) return call.answer({ twiml: sim.twiml });
    if (update.twiml !== undefined) call.redirect({ twiml: update.twiml });
    else if (update.url !== undefined) call.redirect({ url: update.url, method: sim.method ?? 'POST' });
  }

  observeCalls(state, {
    created: (sim) => {
      if (settings.answerOutbound) ringOutbound(sim);
    },
    updated,
  });

  async function call(o: PhoneCallOptions): Promise<PhoneCall> {
    if (o.provider === 'telnyx') return telnyxCall(o);
    const url = webhookUrl(state.gatewayUrl, o, 'voice');
    let statusCallback: string | undefined;
    if (o.statusCallback !== false) {
      statusCallback = o.statusCallback ?? (o.agentId && state.gatewayUrl ? webhookUrl(state.gatewayUrl, { agentId: o.agentId }, 'call-status') : undefined);
    }
    const now = new Date();
    const sim: SimCall = {
      sid: twilioSid('CA'),
      accountSid: state.credentials.twilio.accountSid,
      from: o.from,
      to: o.to,
      status: 'ringing',
      direction: 'inbound',
      statusCallbackEvents: o.statusCallbackEvents ?? ['completed'],
      params: {},
      updates: [],
      createdAt: now,
      updatedAt: now,
    };
    if (statusCallback) sim.statusCallback = statusCallback;
    state.twilio.calls.set(sim.sid, sim);
    const live = track(new LivePhoneCall(ctx, sim, o.script ?? {}, o.mode));
    live.setStatus('ringing', 'ringing');
    try {
      const answer = await sendCallWebhook(state.credentials.twilio.authToken, url, 'POST', callRequestParams(sim, 'ringing'), o, rewriteUrl(settings, url));
      live.recording.twiml.push({ url, method: 'POST', status: answer.status, body: answer.body, at: new Date() });
      if (answer.status < 200 || answer.status >= 300) {
        live.error(`voice webhook ${url} answered HTTP ${answer.status} (Twilio error 11200)`);
        live.end('failed', 'error');
      } else if (!live.ended) {
        live.answer({ twiml: answer.body, baseUrl: url });
      }
    } catch (err) {
      live.error(`voice webhook ${url} failed: ${(err as Error).message} (Twilio error 11200)`);
      live.end('failed', 'error');
    }
    return live;
  }

  /**
   * Rings the agent through Telnyx Call Control: `call.initiated` (incoming) to the voice URL, signed
   * with Ed25519; the call waits, ringing, for the gateway's answer command (which names its stream),
   * and gives up as unanswered after the script's ring time (30 s by default).
   */
  async function telnyxCall(o: PhoneCallOptions): Promise<PhoneCall> {
    const url = webhookUrl(state.gatewayUrl, o, 'voice');
    const now = new Date();
    const sim: SimCall = {
      sid: callControlId(),
      accountSid: state.credentials.twilio.accountSid,
      from: o.from,
      to: o.to,
      status: 'ringing',
      direction: 'inbound',
      statusCallbackEvents: TELNYX_CALL_EVENTS,
      params: {},
      updates: [],
      createdAt: now,
      updatedAt: now,
      // Call Control posts a call's events to its connection's URL until a command names another.
      statusCallback: url,
      telnyx: { callLegId: randomUUID(), callSessionId: randomUUID(), connectionId: 'simulated-connection' },
    };
    state.telnyx.calls.set(sim.sid, sim);
    const live = track(new LivePhoneCall(ctx, sim, o.script ?? {}, o.mode));
    live.setStatus('ringing');
    live.later(o.script?.ringMs ?? 30_000, () => {
      if (!live.answered) live.end('no-answer', 'not-answered');
    });
    try {
      const answer = await postTelnyxCallEvent(state, rewriteUrl(settings, url), sim, 'call.initiated', 'ringing', o);
      live.recording.twiml.push({ url, method: 'POST', status: answer.status, body: answer.body, at: new Date() });
      if (answer.status < 200 || answer.status >= 300) {
        live.error(`call.initiated to ${url} answered HTTP ${answer.status}`);
        live.end('failed', 'error', true);
      }
    } catch (err) {
      live.error(`call.initiated to ${url} failed: ${(err as Error).message}`);
      live.end('failed', 'error', true);
    }
    return live;
  }

  return {
    call,
    onOutbound(match, script) {
      const rule = { match, script };
      rules.push(rule);
      return () => {
        rules = rules.filter((r) => r !== rule);
      };
    },
    outboundRules: () => rules.map(({ match, script }) => ({ match, script })),
    calls: () => calls.values(),
    get: (callSid) => calls.get(callSid),
    pacing(): PacingStats {
      const clock = ctx.clock.stats();
      return {
        activeStreams: ctx.clock.size,
        activeCalls: live.size,
        ticks: clock.ticks,
        lateTicks: clock.lateTicks,
        maxTickLagMs: clock.maxTickLagMs,
        skippedTicks: clock.skippedTicks,
        meanTickCostMs: clock.meanTickCostMs,
        maxTickCostMs: clock.maxTickCostMs,
      };
    },
    reset() {
      for (const c of [...live]) c.end(c.answered ? 'completed' : 'canceled', 'reset', true);
      calls.clear();
      rules = [];
    },
    close() {
      for (const c of [...live]) c.end(c.answered ? 'completed' : 'canceled', 'reset', true);
      ctx.clock.stop();
    },
  };
}
