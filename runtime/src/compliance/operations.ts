import { CHANNEL_SPECS, ErrorCodes, SwitchboardError, type Channel } from '@switchboard/sdk';
import { defineOperation, type AgentOperation } from '../actors/operation.js';
import { requireAgent } from '../agents/operations.js';
import { AGENT_OPERATIONS } from '../protocol/operations.js';
import { CONSENT_KINDS } from '../protocol/catalogue/shapes.js';
import type { ConsentView } from '../protocol/catalogue/compliance.js';
import type { Consent, ConsentKind } from '../store/repositories/consents.js';
import type { SecretBox } from '../secrets.js';
import { contactAddress, personAddress } from './contact-policy.js';
import { verifiedAddress } from './unsubscribe-link.js';

/** How far ahead of this server's clock a consent's `givenAt` may be (the recorder's clock may run ahead). */
const CLOCK_SKEW_MS = 5 * 60_000;

/** The person behind what the agent names, as consents and the list key them; VALIDATION_FAILED when the channel cannot name it so. */
export function personOf(contact: string, channel?: Channel): string {
  const address = contactAddress(channel ? personAddress(channel, contact) : contact);
  const kind = channel && CHANNEL_SPECS[channel].address.kind;
  const fits = address !== undefined && (kind === undefined || (kind === 'email' ? address.includes('@') : kind === 'line-user' ? address.startsWith('U') : address.startsWith('+')));
  if (!fits) {
    throw new SwitchboardError(
      ErrorCodes.VALIDATION_FAILED,
      `contact ${JSON.stringify(contact.slice(0, 64))} is not ${channel ? `a ${channel} address` : 'an E.164 number, an email address or a LINE user id'}.`,
    );
  }
  return address;
}

const view = ({ address, ...rest }: Consent): ConsentView => ({ contact: address, ...rest });

/**
 * What an agent records of the people it contacts: consents (record, revoke, check) and its own
 * do-not-contact entries; the operator's contact settings of the agent; and its recipients' one-click
 * unsubscribes, whose links `box` proves.
 */
export function complianceOperations(box: SecretBox): AgentOperation[] {
  return [
    defineOperation(AGENT_OPERATIONS.recordConsent, {
      needs: ['consents'],
      async handle({ actor, store, clock }, request) {
        const { agentId } = requireAgent(actor);
        const address = personOf(request.contact, request.channel);
        const now = clock.now();
        const givenAt = request.givenAt === undefined ? now : new Date(request.givenAt);
        if (Number.isNaN(givenAt.getTime()) || givenAt.getTime() > now.getTime() + CLOCK_SKEW_MS) {
          throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'givenAt must be an ISO 8601 time, not in the future: when the person gave their consent.');
        }
        const consent = await store.consents.record({ address, scope: agentId, kind: request.kind, source: request.source, evidence: request.evidence ?? null }, givenAt);
        return { success: true as const, agentId, consent: view(consent) };
      },
    }),
    defineOperation(AGENT_OPERATIONS.revokeConsent, {
      needs: ['consents'],
      async handle({ actor, store, clock }, request) {
        const { agentId } = requireAgent(actor);
        const address = personOf(request.contact, request.channel);
        const at = clock.now();
        const revoked: ConsentKind[] = [];
        // A revocation told to any agent revokes what the operator holds too: the person withdrew it from the business.
        for (const kind of request.kind ? [request.kind] : CONSENT_KINDS) {
          const own = await store.consents.revoke(address, agentId, kind, at);
          const operator = await store.consents.revoke(address, '*', kind, at);
          if (own || operator) revoked.push(kind);
        }
        return { success: true as const, agentId, contact: address, revoked };
      },
    }),
    defineOperation(AGENT_OPERATIONS.checkConsent, {
      needs: ['consents'],
      async handle({ actor, store }, request) {
        const agent = requireAgent(actor);
        const address = personOf(request.contact, request.channel);
        const records = (await store.consents.forAddress(address, agent.agentId)).filter((c) => request.kind === undefined || c.kind === request.kind);
        const kinds = request.kind ? [request.kind] : CONSENT_KINDS;
        const consented = Object.fromEntries(kinds.map((kind) => [kind, records.some((c) => c.kind === kind && c.revokedAt === null)]));
        return { agentId: agent.agentId, contact: address, consented, required: [...(agent.requireConsent ?? [])], consents: records.map(view) };
      },
    }),
    defineOperation(AGENT_OPERATIONS.doNotContact, {
      needs: ['doNotContact'],
      async handle({ actor, store, clock }, request) {
        const { agentId } = requireAgent(actor);
        const address = personOf(request.contact, request.channel);
        const changed = await store.doNotContact.add({ address, scope: agentId, source: 'agent', reason: request.reason ?? null, actor: `agent:${agentId}` }, clock.now());
        return { success: true as const, agentId, contact: address, scope: agentId, changed };
      },
    }),
    defineOperation(AGENT_OPERATIONS.setContactSettings, {
      needs: ['agents'],
      async handle({ actor, store, clock }, request) {
        const agent = requireAgent(actor);
        const requireConsent = request.requireConsent ? [...new Set(request.requireConsent)] : [...(agent.requireConsent ?? [])];
        const listUnsubscribe = request.listUnsubscribe ?? agent.listUnsubscribe ?? false;
        const updatedAt = clock.now().toISOString();
        const callingHoursOverride =
          request.callingHoursOverride === undefined ? (agent.callingHoursOverride ?? null) : request.callingHoursOverride && { reason: request.callingHoursOverride.reason, setAt: updatedAt };
        if (request.requireConsent) await store.agents.setRequireConsent(agent.agentId, requireConsent, updatedAt);
        if (request.listUnsubscribe !== undefined) await store.agents.setListUnsubscribe(agent.agentId, listUnsubscribe, updatedAt);
        if (request.callingHoursOverride !== undefined) await store.agents.setCallingHoursOverride(agent.agentId, callingHoursOverride, updatedAt);
        actor.state = { ...agent, requireConsent, listUnsubscribe, callingHoursOverride, updatedAt };
        return { ok: true as const, agentId: agent.agentId, requireConsent, listUnsubscribe, callingHoursOverride };
      },
    }),
    defineOperation(AGENT_OPERATIONS.unsubscribe, {
      needs: ['doNotContact'],
      async handle({ actor, store, clock }, request) {
        // An agent that is not there, or a link it did not make, is the same answer: no such link.
        const agent = actor.state;
        const address = agent ? verifiedAddress(box, agent, request.token) : undefined;
        if (!agent || !address) throw new SwitchboardError(ErrorCodes.NOT_FOUND, 'No such unsubscribe link.');
        if (!request.apply) return { ok: true as const, agentId: agent.agentId, changed: false };
        const entry = { address, scope: agent.agentId, source: 'email-unsubscribe', reason: 'one-click unsubscribe (RFC 8058)', actor: 'contact' } as const;
        return { ok: true as const, agentId: agent.agentId, changed: await store.doNotContact.add(entry, clock.now()) };
      },
    }),
  ];
}
