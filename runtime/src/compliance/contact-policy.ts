import { ErrorCodes, SwitchboardError, type Channel } from '@switchboard/sdk';
import type { SqlCondition } from '../store/database.js';
import type { ConsentKind, ConsentRepository } from '../store/repositories/consents.js';
import type { ContactBlock, DoNotContactRepository } from '../store/repositories/do-not-contact.js';
import { callingWindow } from './calling-hours.js';
import { rulesFor, type ContactRules } from './contact-rules.js';
import type { RecipientPlaces } from './recipient-place.js';

/** One outbound contact an agent asks for: a message on a channel, or a call. */
export interface OutboundContact {
  readonly agentId: string;
  readonly channel: Channel;
  /** The recipient as the channel names them (`whatsapp:+1…` included). */
  readonly to: string;
  /** A call (placed, bridged or transferred to) rather than a message. */
  readonly call?: boolean;
  /** A marketing message, as the agent marks it: held to calling hours and marketing consent. */
  readonly marketing?: boolean;
}

/** What an agent's contacts need beyond the law's defaults, as the operator set it. */
export interface AgentContactSettings {
  /**
   * The consent kinds a contact needs on record: a call `automated-call`, a message the agent marks as
   * marketing `marketing`, any other message `transactional` (the agent's `requireConsent`).
   */
  readonly requireConsent?: readonly ConsentKind[];
  /** Calling hours waived, with the operator's recorded reason. */
  readonly callingHoursOverride?: { readonly reason: string } | null;
}

export interface ContactPolicyOptions {
  readonly doNotContact: DoNotContactRepository;
  readonly consents: ConsentRepository;
  readonly places: RecipientPlaces;
  /** The time the policy reads (settable in tests). */
  readonly clock?: () => Date;
  /** Country rules that replace the built-in ones, by ISO region. */
  readonly rules?: Readonly<Record<string, ContactRules>>;
  /** Whether calls and marketing keep the recipient's calling hours (CALLING_HOURS); default true. */
  readonly callingHours?: boolean;
}

/**
 * The one step before every outbound message and call: the do-not-contact list, the recipient's
 * calling hours and the consent a contact needs. A refusal is a coded SwitchboardError whose
 * message says what to do; nothing refused reaches a provider.
 */
export class ContactPolicy {
  readonly #clock: () => Date;

  constructor(private readonly options: ContactPolicyOptions) {
    this.#clock = options.clock ?? (() => new Date());
  }

  /** Throws RECIPIENT_OPTED_OUT, OUTSIDE_CALLING_HOURS or CONSENT_REQUIRED when the contact may not go out. */
  async check(contact: OutboundContact, settings: AgentContactSettings = {}): Promise<void> {
    const address = personAddress(contact.channel, contact.to);
    const block = await this.options.doNotContact.blocking(address, contact.agentId, contact.channel);
    if (block) refuseListed(contact.channel, address, block);
    await this.checkRules(contact, settings);
  }

  /**
   * The condition under which a write of the contact may go in: the recipient is not on the
   * do-not-contact list for the agent and channel. A caller whose commit holds it (a send's INSERT)
   * checks the list with no read of its own, then asks {@link checkRules} for the rest, and
   * {@link check} only when its write was refused, to say why.
   */
  listCondition(contact: OutboundContact): SqlCondition {
    return this.options.doNotContact.absentCondition(personAddress(contact.channel, contact.to), contact.agentId, contact.channel);
  }

  /** Throws OUTSIDE_CALLING_HOURS or CONSENT_REQUIRED: every check but the do-not-contact list's (see {@link listCondition}). */
  async checkRules(contact: OutboundContact, settings: AgentContactSettings = {}): Promise<void> {
    const address = personAddress(contact.channel, contact.to);
    const timed = contact.call === true || contact.marketing === true;
    if (timed && this.options.callingHours !== false && !settings.callingHoursOverride && isPhone(address)) await this.#withinHours(address);
    // Consent is asked where the agent requires it; the rules say where the law does, for the operator to choose.
    const kind: ConsentKind = contact.call ? 'automated-call' : contact.marketing ? 'marketing' : 'transactional';
    if (!settings.requireConsent?.includes(kind) || (await this.options.consents.current(address, contact.agentId, kind))) return;
    throw new SwitchboardError(
      ErrorCodes.CONSENT_REQUIRED,
      `${address} has no ${kind} consent on record for this agent; record it with comms_record_consent once they have given it.`,
      { details: [{ address, kind }] },
    );
  }

  async #withinHours(address: string): Promise<void> {
    const place = await this.options.places.of(address);
    const window = callingWindow(this.#clock(), place.zones, rulesFor(place.region, this.options.rules));
    if (window.open) return;
    const opensAt = window.opensAt?.toISOString();
    throw new SwitchboardError(
      ErrorCodes.OUTSIDE_CALLING_HOURS,
      opensAt ? `It is outside calling hours where ${address} is; try again from ${opensAt}.` : `The calling-hours rules for ${address} allow no time this week; ask the operator.`,
      { details: [{ address, opensAt: opensAt ?? null, zones: place.zones }] },
    );
  }
}

/** Throws the refusal of a contact the do-not-contact list keeps from `address`: EMAIL_SUPPRESSED for a bounce or complaint, else RECIPIENT_OPTED_OUT. */
function refuseListed(channel: Channel, address: string, block: ContactBlock): never {
  if (channel === 'email' && (block.source === 'email-bounce' || block.source === 'complaint')) {
    const why = block.source === 'complaint' ? 'they marked an email from this agent as spam' : 'an email to it bounced for good';
    throw new SwitchboardError(
      ErrorCodes.EMAIL_SUPPRESSED,
      `${address} is suppressed for this agent: ${why} (${block.reason ?? block.source}, ${block.createdAt}). Do not email it; the operator can lift the suppression once the address works again.`,
      { details: [{ address, scope: block.scope, source: block.source, event: block.reason, since: block.createdAt }] },
    );
  }
  const again =
    block.source === 'sms-stop' ? 'unless they text START' : block.source === 'whatsapp-opt-out' ? 'unless they write START on WhatsApp' : 'unless they opt in again and the operator removes the entry';
  throw new SwitchboardError(
    ErrorCodes.RECIPIENT_OPTED_OUT,
    `${address} is on the do-not-contact list (${block.source}, ${block.createdAt}): do not contact them ${block.channels ? `on ${block.channels.join(' or ')}` : 'on any channel'} ${again}.`,
    { details: [{ address, scope: block.scope, source: block.source, since: block.createdAt }] },
  );
}

/** The person behind a channel address: the number for SMS, WhatsApp and calls, the lower-cased email address. */
export function personAddress(channel: Channel, to: string): string {
  if (channel === 'email') return to.trim().toLowerCase();
  return to.replace(/^whatsapp:/, '');
}

/**
 * The person an operator names (an E.164 number, `whatsapp:` and all, an email address or a LINE
 * user id) as the do-not-contact list and consents key them, or undefined when it is none of those.
 */
export function contactAddress(raw: string): string | undefined {
  const text = raw.trim().replace(/^whatsapp:/, '');
  if (isPhone(text)) return text;
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) && text.length <= 254) return text.toLowerCase();
  if (/^U[0-9a-f]{32}$/.test(text)) return text;
  return undefined;
}

const isPhone = (address: string) => /^\+[1-9]\d{6,14}$/.test(address);

/** What the operator set for an agent's contacts, as the policy reads it. */
export function contactSettingsOf(agent: { readonly requireConsent?: readonly ConsentKind[]; readonly callingHoursOverride?: { readonly reason: string } | null }): AgentContactSettings {
  return { requireConsent: agent.requireConsent ?? [], callingHoursOverride: agent.callingHoursOverride ?? null };
}
