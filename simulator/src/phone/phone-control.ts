import type { SimRequest } from '../http/sim-request.js';
import { jsonResponse, type SimResponse } from '../http/sim-response.js';
import { MissingWebhookTargetError } from '../webhook-delivery.js';
import type { SimulatorLogger } from '../types.js';
import { followCall } from './call-progress.js';
import type { CallRecording, PhoneCallOptions, PhoneScript, PhoneStep, SimulatorPhone } from './phone-types.js';

const STEP_KINDS = new Set(['say', 'dtmf', 'pause', 'listen', 'hangup']);
const ANSWERS = new Set(['answer', 'busy', 'no-answer', 'failed']);

function badRequest(error: string): SimResponse {
  return jsonResponse(400, { error, code: 'BAD_REQUEST' });
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Why a step is unusable, or undefined. */
function stepProblem(step: unknown, i: number): string | undefined {
  if (typeof step === 'string') return step.trim() === '' ? `steps[${i}] is an empty utterance` : undefined;
  const s = objectOf(step);
  if (!s || typeof s['kind'] !== 'string' || !STEP_KINDS.has(s['kind'])) return `steps[${i}] needs kind: ${[...STEP_KINDS].join(', ')}`;
  if (s['kind'] === 'say' && (typeof s['text'] !== 'string' || s['text'] === '')) return `steps[${i}] (say) needs text`;
  if (s['kind'] === 'dtmf' && (typeof s['digits'] !== 'string' || !/^[0-9*#]+$/.test(s['digits']))) return `steps[${i}] (dtmf) needs digits (0-9, *, #)`;
  if (s['kind'] === 'pause' && (typeof s['ms'] !== 'number' || s['ms'] < 0)) return `steps[${i}] (pause) needs ms >= 0`;
  if (s['kind'] === 'listen' && s['ms'] !== undefined && (typeof s['ms'] !== 'number' || s['ms'] < 0)) return `steps[${i}] (listen) ms must be >= 0`;
  return undefined;
}

function stepsProblem(steps: unknown): string | undefined {
  if (!Array.isArray(steps)) return 'steps must be an array';
  for (const [i, step] of steps.entries()) {
    const problem = stepProblem(step, i);
    if (problem) return problem;
  }
  return undefined;
}

/** Why a script is unusable, or undefined. */
export function scriptProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const script = objectOf(value);
  if (!script) return 'script must be an object';
  if (script['answer'] !== undefined && !ANSWERS.has(String(script['answer']))) return `script.answer must be one of ${[...ANSWERS].join(', ')}`;
  for (const key of ['ringMs', 'replyTimeoutMs', 'quietMs', 'maxDurationMs', 'dialTalkMs']) {
    if (script[key] !== undefined && (typeof script[key] !== 'number' || script[key] < 0)) return `script.${key} must be a number >= 0`;
  }
  return script['steps'] === undefined ? undefined : stepsProblem(script['steps']);
}

/** A call's recording without the audio bytes, for JSON. */
function summary(recording: CallRecording) {
  const { callSid, direction, from, to, status, mode, endedBy, durationSeconds, price, frames, errors } = recording;
  return { callSid, direction, from, to, status, mode, endedBy: endedBy ?? null, durationSeconds, price, turns: recording.turns.length, frames, errors };
}

/**
 * `/_sim/phone/...`: place a call, list and read calls, hang up, add steps, set how outbound calls
 * are answered, read the media pacing figures.
 */
export function phoneControl(phone: SimulatorPhone, logger: SimulatorLogger) {
  /** Removers of the rules added through this API (sim.reset() also drops them). */
  const removers: Array<() => void> = [];
  return async (req: SimRequest, path: string): Promise<SimResponse> => {
    const { method } = req;
    const body = objectOf(req.body);
    if (method === 'POST' && path === '/call') {
      if (!body) return badRequest('Send the call as a JSON object: {agentId | url, from, to, mode?, script?}');
      const missing = ['from', 'to'].filter((f) => typeof body[f] !== 'string' || body[f] === '');
      if (missing.length > 0) return badRequest(`Missing ${missing.join(', ')}`);
      if (body['mode'] !== undefined && body['mode'] !== 'relay' && body['mode'] !== 'stream') return badRequest('mode must be relay or stream');
      const problem = scriptProblem(body['script']);
      if (problem) return badRequest(problem);
      try {
        const call = await phone.call(body as unknown as PhoneCallOptions);
        const wait = req.query.get('wait') === 'true' || req.query.get('wait') === '1' || body['wait'] === true;
        if (!wait) return jsonResponse(200, { callSid: call.callSid, status: call.status, recording: call.recording });
        const stop = followCall(call, logger);
        const recording = await call.done.finally(stop);
        return jsonResponse(200, { callSid: call.callSid, status: call.status, recording });
      } catch (err) {
        if (err instanceof MissingWebhookTargetError) return badRequest(err.message);
        throw err;
      }
    }
    if (method === 'GET' && path === '/calls') {
      const calls = phone.calls().map((c) => summary(c.recording));
      return jsonResponse(200, { calls, count: calls.length });
    }
    if (method === 'GET' && path === '/pacing') return jsonResponse(200, phone.pacing());
    const callPath = /^\/calls\/([^/]+)(\/hangup|\/steps)?$/.exec(path);
    if (callPath) {
      const call = phone.get(callPath[1]!);
      if (!call) return jsonResponse(404, { error: `No phone call ${callPath[1]}`, code: 'NOT_FOUND' });
      if (method === 'GET' && !callPath[2]) return jsonResponse(200, call.recording);
      if (method === 'POST' && callPath[2] === '/hangup') {
        call.hangup();
        return jsonResponse(200, { callSid: call.callSid, status: call.status });
      }
      if (method === 'POST' && callPath[2] === '/steps') {
        const steps = Array.isArray(req.body) ? req.body : body && Array.isArray(body['steps']) ? body['steps'] : [req.body];
        const problem = stepsProblem(steps);
        if (problem) return badRequest(problem);
        call.perform(...(steps as Array<PhoneStep | string>));
        return jsonResponse(200, { callSid: call.callSid, status: call.status });
      }
    }
    if (path === '/outbound') {
      if (method === 'GET') return jsonResponse(200, { rules: phone.outboundRules() });
      if (method === 'DELETE') {
        for (const remove of removers.splice(0)) remove();
        return jsonResponse(200, { ok: true, rules: phone.outboundRules() });
      }
      if (method === 'POST' || method === 'PUT') {
        if (!body) return badRequest('Send {match?, script} as JSON; match is a number, an agentId or * (the default)');
        const match = typeof body['match'] === 'string' && body['match'] !== '' ? body['match'] : '*';
        const problem = scriptProblem(body['script'] ?? {});
        if (problem) return badRequest(problem);
        const script = (body['script'] ?? {}) as PhoneScript;
        removers.push(phone.onOutbound(match, script));
        return jsonResponse(201, { ok: true, rules: phone.outboundRules() });
      }
    }
    return jsonResponse(404, { error: `No control route ${method} /_sim/phone${path}`, code: 'NOT_FOUND' });
  };
}
