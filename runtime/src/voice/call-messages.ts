import type { AgentClient } from '../agents/agent-client.js';
import type { DeliveryService } from '../delivery/delivery-service.js';
import type { RuntimeEvents } from '../events.js';
import { newId } from '../ids.js';
import { receivedEntry, voicemailEntry } from '../inbox/entries.js';
import type { AgentRecord } from '../store/repositories/agents.js';
import { newDeadLetter } from '../store/repositories/dead-letters.js';
import type { MessageRecord } from '../store/repositories/messages.js';
import type { Store } from '../store/store.js';
import { traceOf, type CallSession } from './call-session.js';

/**
 * Where a message a call took for the agent goes (a voicemail, or the callee's reply when no one could
 * take the turns): stored and delivered where the agent's actor is ({@link StoredCallMessages}), or,
 * from a cluster gateway holding the call, handed to the agent's actor ({@link ForwardedCallMessages}).
 */
export interface CallMessages {
  take(session: CallSession, agent: AgentRecord, message: string): Promise<void>;
}

/** Hands the message to the agent's actor, wherever it lives (the `callMessageTaken` operation). */
export class ForwardedCallMessages implements CallMessages {
  constructor(private readonly agents: Pick<AgentClient, 'call'>) {}

  async take(session: CallSession, _agent: AgentRecord, message: string): Promise<void> {
    await this.agents.call('callMessageTaken', session.agentId, { session, message });
  }
}

/** Stores the message and delivers it; runs where the agent's actor is. */
export class StoredCallMessages implements CallMessages {
  constructor(
    private readonly store: Store,
    private readonly events: RuntimeEvents,
    private readonly delivery: DeliveryService,
  ) {}

  /**
   * The callee's reply to a call the agent placed is an inbound voice message; anything else is a
   * voicemail.
   */
  take(session: CallSession, agent: AgentRecord, message: string): Promise<void> {
    return session.direction === 'outbound' && session.purpose.kind === 'conversation' ? this.#reply(session, agent, message) : this.#voicemail(session, agent, message);
  }

  /**
   * The callee's answer to a call the agent placed, when no one could take the call's turns: an inbound
   * voice message, delivered like any other (live session, callback URL, else an `agent_offline` dead letter).
   */
  async #reply(session: CallSession, agent: AgentRecord, message: string): Promise<void> {
    const now = new Date().toISOString();
    const record: MessageRecord = {
      id: newId('msg'),
      agentId: agent.agentId,
      channel: 'voice',
      direction: 'inbound',
      from: session.to,
      to: session.from,
      subject: null,
      body: message,
      html: null,
      mediaUrls: [],
      externalId: session.callSid ?? session.sessionId,
      status: 'received',
      segments: 1,
      cost: null,
      error: null,
      delivery: 'pending',
      createdAt: now,
      updatedAt: now,
    };
    const writes = [this.store.messages.insertInboundStatement(record), this.store.inbox.appendStatement(receivedEntry(record))];
    if ((await this.store.db.executeAll(writes))[0]!.changes !== 1) return;
    this.events.emit('message', { channel: 'voice', direction: 'inbound', status: 'received' });
    this.events.emit('inbox', { agentId: agent.agentId });
    await this.delivery.schedule(record, agent);
  }

  async #voicemail(session: CallSession, agent: AgentRecord, message: string): Promise<void> {
    const transcript = session.transcript.map((l) => `${l.role === 'caller' ? 'Caller' : 'Agent'}: ${l.text}`).join('\n');
    const subject = session.purpose.kind === 'secretary' ? 'Message taken on a secretary call' : 'Voicemail';
    const { callSid } = session;
    // The voicemail lands in the agent's inbox in the letter's commit.
    await this.store.db.executeAll([
      ...(callSid ? [this.store.inbox.appendStatement(voicemailEntry({ ...session, callSid }, subject, transcript), { callLogged: callSid })] : []),
      this.store.deadLetters.insertStatement(
        newDeadLetter({
          agentId: agent.agentId,
          channel: 'voice',
          direction: 'inbound',
          reason: 'voicemail',
          from: session.direction === 'inbound' ? session.from : session.to,
          to: session.direction === 'inbound' ? session.to : session.from,
          subject,
          body: transcript,
          mediaUrls: [],
          externalId: session.callSid,
          attempts: 0,
        }),
      ),
    ]);
    if (callSid) this.events.emit('inbox', { agentId: agent.agentId });
    this.events.emit('deadLetter', { agentId: agent.agentId, reason: 'voicemail' });
    if (agent.callbackUrl) {
      this.delivery.notify(agent.agentId, {
        id: newId('evt'),
        type: 'voicemail',
        agentId: agent.agentId,
        createdAt: new Date().toISOString(),
        data: { sessionId: session.sessionId, callSid: session.callSid, from: session.from, to: session.to, message, transcript: session.transcript },
        ...traceOf(session),
      });
    }
  }
}
