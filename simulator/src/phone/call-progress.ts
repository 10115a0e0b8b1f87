import type { SimulatorLogger } from '../types.js';
import type { PhoneCall } from './phone-types.js';

const TICK_MS = 500;

/**
 * Logs what a call someone is waiting on does, as it happens: each status, what the caller says and
 * what the agent answers. A `?wait=1` call can take half a minute; the person at the terminal sees
 * it move instead of a silent curl. Returns a function that stops following.
 */
export function followCall(call: PhoneCall, logger: SimulatorLogger): () => void {
  const { recording } = call;
  const base = { callSid: call.callSid, from: recording.from, to: recording.to };
  let status = '';
  const told = new Map<number, { caller: boolean; agent: boolean }>();
  const tick = () => {
    if (recording.status !== status) {
      status = recording.status;
      logger.info({ ...base, status }, `simulator phone: call ${status}`);
    }
    for (const turn of recording.turns) {
      const seen = told.get(turn.index) ?? { caller: false, agent: false };
      told.set(turn.index, seen);
      if (!seen.caller && turn.caller?.endedAt) {
        seen.caller = true;
        logger.info({ ...base, turn: turn.index }, `simulator phone: caller said ${JSON.stringify(turn.caller.text ?? `digits ${turn.caller.digits}`)}`);
      }
      if (!seen.agent && (turn.agent.complete || turn.agent.interrupted || turn.timedOut)) {
        seen.agent = true;
        const reply = turn.timedOut ? 'nothing in time' : turn.agent.text ? JSON.stringify(turn.agent.text) : `${Math.round(turn.agent.audioMs)} ms of audio`;
        logger.info({ ...base, turn: turn.index }, `simulator phone: agent said ${reply}`);
      }
    }
  };
  const timer = setInterval(tick, TICK_MS);
  return () => {
    clearInterval(timer);
    tick();
    logger.info({ ...base, endedBy: recording.endedBy ?? null, durationSeconds: recording.durationSeconds }, 'simulator phone: call over');
  };
}
