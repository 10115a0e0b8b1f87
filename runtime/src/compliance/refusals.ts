import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { RuntimeEvents } from '../events.js';
import type { Logger } from '../logger.js';
import type { SqlCondition } from '../store/database.js';
import type { ContactRefusalRepository } from '../store/repositories/contact-refusals.js';
import { personAddress, type AgentContactSettings, type ContactPolicy, type OutboundContact } from './contact-policy.js';

/** The codes by which the policy refuses a contact; a new refusal of the policy adds its code here to be stored and counted. */
export const REFUSAL_CODES: ReadonlySet<string> = new Set<string>([ErrorCodes.RECIPIENT_OPTED_OUT, ErrorCodes.EMAIL_SUPPRESSED, ErrorCodes.OUTSIDE_CALLING_HOURS, ErrorCodes.CONSENT_REQUIRED]);

/** How long a stored refusal is kept: a quarter's evidence of what the policy held back (then swept hourly). */
export const REFUSALS_KEPT_MS = 90 * 86_400_000;

/**
 * The contact policy with its refusals kept: each is stored (`contact_refusals`, for the operator)
 * and reported (`contactRefused`, which the gateways count by code and channel) before the refusal
 * goes back to the agent. A failure to store one is logged and does not change the answer.
 */
export class RecordedContactPolicy implements Pick<ContactPolicy, 'check' | 'checkRules' | 'listCondition'> {
  constructor(
    private readonly policy: Pick<ContactPolicy, 'check' | 'checkRules' | 'listCondition'>,
    private readonly refusals: Pick<ContactRefusalRepository, 'record'>,
    private readonly events: RuntimeEvents,
    private readonly logger: Logger,
  ) {}

  check(contact: OutboundContact, settings?: AgentContactSettings): Promise<void> {
    return this.#kept(contact, this.policy.check(contact, settings));
  }

  checkRules(contact: OutboundContact, settings?: AgentContactSettings): Promise<void> {
    return this.#kept(contact, this.policy.checkRules(contact, settings));
  }

  listCondition(contact: OutboundContact): SqlCondition {
    return this.policy.listCondition(contact);
  }

  async #kept(contact: OutboundContact, check: Promise<void>): Promise<void> {
    try {
      await check;
    } catch (err) {
      if (err instanceof SwitchboardError && REFUSAL_CODES.has(err.code)) await this.#keep(contact, err);
      throw err;
    }
  }

  async #keep(contact: OutboundContact, refusal: SwitchboardError): Promise<void> {
    const { agentId, channel } = contact;
    this.events.emit('contactRefused', { agentId, channel, code: refusal.code });
    try {
      await this.refusals.record({
        agentId,
        channel,
        address: personAddress(channel, contact.to),
        code: refusal.code,
        call: contact.call === true,
        message: refusal.message,
        at: new Date().toISOString(),
      });
    } catch (err) {
      this.logger.warn({ err, agentId, channel, code: refusal.code }, 'contact refusal not stored');
    }
  }
}
