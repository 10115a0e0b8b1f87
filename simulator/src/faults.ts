import type { FaultRule, SimProvider } from './types.js';

/** What the matching fault rules do to one request. */
export interface FaultDecision {
  latencyMs: number;
  timeout: boolean;
  hangAfterAccepting?: boolean;
  status?: number;
  retryAfterSeconds?: number;
}

const PROVIDERS: ReadonlySet<string> = new Set(['twilio', 'telnyx', 'resend', 'postmark', 'line', 'elevenlabs', 'deepgram', 'whatsapp-cloud', 'openai']);

/** Checks a rule once, when it is added, so matching can trust it. */
export function validateFaultRule(rule: FaultRule): FaultRule {
  if (typeof rule !== 'object' || rule === null) throw new TypeError('A fault rule must be an object');
  if (rule.provider !== undefined && !PROVIDERS.has(rule.provider)) throw new TypeError(`Unknown provider "${String(rule.provider)}"; use twilio, telnyx, resend, postmark, line, elevenlabs, deepgram, whatsapp-cloud or openai`);
  if (rule.pathIncludes !== undefined && typeof rule.pathIncludes !== 'string') throw new TypeError('pathIncludes must be a string');
  if (rule.method !== undefined && typeof rule.method !== 'string') throw new TypeError('method must be a string');
  if (rule.latencyMs !== undefined && !(Number.isFinite(rule.latencyMs) && rule.latencyMs >= 0)) throw new TypeError('latencyMs must be a number >= 0');
  if (rule.errorRate !== undefined && !(Number.isFinite(rule.errorRate) && rule.errorRate >= 0 && rule.errorRate <= 1)) throw new TypeError('errorRate must be between 0 and 1');
  if (rule.status !== undefined && !(Number.isInteger(rule.status) && rule.status >= 400 && rule.status <= 599)) throw new TypeError('status must be an HTTP error status (400-599)');
  if (rule.retryAfterSeconds !== undefined && !(Number.isInteger(rule.retryAfterSeconds) && rule.retryAfterSeconds >= 0)) throw new TypeError('retryAfterSeconds must be an integer >= 0');
  if (rule.timeout !== undefined && typeof rule.timeout !== 'boolean') throw new TypeError('timeout must be a boolean');
  if (rule.hangAfterAccepting !== undefined && typeof rule.hangAfterAccepting !== 'boolean') throw new TypeError('hangAfterAccepting must be a boolean');
  if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times >= 1)) throw new TypeError('times must be an integer >= 1');
  return { ...rule };
}

interface ActiveRule {
  rule: FaultRule;
  remaining: number;
}

/**
 * Fault rules, applied in the order added. Every matching rule applies: latencies add up,
 * a timeout wins, and the first rule whose error fires sets the status.
 */
export class FaultRules {
  #active: ActiveRule[] = [];

  add(rule: FaultRule): void {
    const checked = validateFaultRule(rule);
    this.#active.push({ rule: checked, remaining: checked.times ?? Infinity });
  }

  clear(): void {
    this.#active = [];
  }

  list(): FaultRule[] {
    return this.#active.map(({ rule, remaining }) => (rule.times === undefined ? { ...rule } : { ...rule, times: remaining }));
  }

  match(provider: SimProvider, method: string, path: string): FaultDecision | undefined {
    if (this.#active.length === 0) return undefined;
    let decision: FaultDecision | undefined;
    let spent = false;
    for (const active of this.#active) {
      const { rule } = active;
      if (rule.provider !== undefined && rule.provider !== provider) continue;
      if (rule.method !== undefined && rule.method.toUpperCase() !== method) continue;
      if (rule.pathIncludes !== undefined && !path.includes(rule.pathIncludes)) continue;
      active.remaining--;
      if (active.remaining <= 0) spent = true;
      decision ??= { latencyMs: 0, timeout: false };
      decision.latencyMs += rule.latencyMs ?? 0;
      if (rule.timeout) decision.timeout = true;
      if (rule.hangAfterAccepting) decision.hangAfterAccepting = true;
      if (decision.status === undefined && (rule.status !== undefined || rule.errorRate !== undefined)) {
        if (Math.random() < (rule.errorRate ?? 1)) {
          decision.status = rule.status ?? 500;
          if (rule.retryAfterSeconds !== undefined) decision.retryAfterSeconds = rule.retryAfterSeconds;
        }
      }
    }
    if (spent) this.#active = this.#active.filter((a) => a.remaining > 0);
    return decision;
  }
}
