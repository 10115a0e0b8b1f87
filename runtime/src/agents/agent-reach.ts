import { ErrorCodes, hasErrorCode, SwitchboardError } from '@switchboard/sdk';
import type { Bus, Subscription } from '../bus/bus.js';
import { liveSubject, turnSubject } from '../cluster/cluster-mode.js';
import type { DeliveryService } from '../delivery/delivery-service.js';
import type { AgentEvent } from '../delivery/events.js';
import type { Store } from '../store/store.js';
import type { AgentTurns } from '../voice/agent-turns.js';
import type { CallSession } from '../voice/call-session.js';

/** A call as far as asking an agent for one turn needs it. */
export type TurnCall = Pick<CallSession, 'agentId' | 'sessionId' | 'callSid' | 'direction' | 'from' | 'to' | 'systemPrompt' | 'transcript'>;

/** The live agent sessions one gateway holds (MCP), as the runtime reaches agents through them. */
export interface LocalSessions {
  /** Hands an event to the agent's live session here; false when there is none or it cannot take it. */
  deliver(agentId: string, event: AgentEvent): Promise<boolean>;
  /** True when a live session of the agent is held here. */
  holds(agentId: string): boolean;
  /** Asks the agent's session here for a call's next turn (MCP sampling); undefined when none here can. */
  sample(call: TurnCall, timeoutMs: number): Promise<string> | undefined;
  /** True when a session of the agent that can answer turns is held here. */
  samples(agentId: string): boolean;
}

/**
 * The one way to reach an agent live: deliveries and voice turns go to its session wherever a gateway
 * holds it. Embedded, the runtime calls the local sessions directly. In a cluster a gateway answers on
 * the live and turn subjects of each agent it holds a session for (one gateway of the queue group
 * answers; no responders means no session anywhere), and a call held by one gateway asks its turns of
 * the gateway holding the agent's session.
 */
export class AgentReach {
  constructor(
    private readonly store: Store,
    private readonly delivery: DeliveryService,
    private readonly turns: AgentTurns,
    /** The cluster bus when this is a cluster gateway; undefined embedded. */
    private readonly clusterBus: Bus | undefined,
  ) {}

  /**
   * Makes `local` the sessions this process reaches agents through; the gateway calls the returned
   * function whenever the sessions it holds of an agent change (opened or closed).
   */
  serve(local: LocalSessions): (agentId: string) => void {
    const bus = this.clusterBus;
    if (!bus) {
      this.delivery.setLiveSink((agentId, event) => local.deliver(agentId, event), (agentId) => local.holds(agentId));
      this.turns.setSampler(
        (call, timeoutMs) => local.sample(call, timeoutMs),
        (agentId) => local.samples(agentId),
      );
      return () => undefined;
    }
    this.turns.setSampler(
      (call, timeoutMs) => {
        const here = local.sample(call, timeoutMs);
        if (here) return here;
        const request: TurnRequest = { call: turnCall(call), timeoutMs };
        // No session anywhere is no answer (the callback URL is next), not a failure to log.
        return bus
          .request<string>(turnSubject(call.agentId), request, { timeoutMs: timeoutMs + 1000 })
          .catch((err: unknown) => (hasErrorCode(err, ErrorCodes.UNAVAILABLE) ? '' : Promise.reject(err)));
      },
      async (agentId) =>
        local.samples(agentId) ||
        bus.request<boolean>(turnSubject(agentId), { probe: true } satisfies TurnRequest, { timeoutMs: 2000 }).then(
          (answer) => answer === true,
          () => false,
        ),
    );
    const live = new Map<string, Subscription>();
    const turns = new Map<string, Subscription>();
    const answerTurn = (agentId: string) => (data: unknown) => {
      const request = data as TurnRequest;
      if ('probe' in request) return local.samples(agentId);
      const answer = local.sample(request.call, request.timeoutMs);
      if (!answer) throw new SwitchboardError(ErrorCodes.UNAVAILABLE, `No session that answers turns for agent ${agentId} here.`);
      return answer;
    };
    return (agentId) => {
      reconcile(live, local.holds(agentId), agentId, () =>
        bus.subscribe(liveSubject(agentId), (event) => local.deliver(agentId, event as AgentEvent), { queue: 'live' }),
      );
      reconcile(turns, local.samples(agentId), agentId, () => bus.subscribe(turnSubject(agentId), answerTurn(agentId), { queue: 'turn' }));
    };
  }

  /** How many messages wait for the agent (dead letters it has not taken). */
  waiting(agentId: string): Promise<number> {
    return this.store.deadLetters.countPending(agentId);
  }
}

/** A turn asked of another gateway: the call so far, or a probe (does a session that answers turns exist?). */
type TurnRequest = { probe: true } | { call: TurnCall; timeoutMs: number };

/** Subscribes while `wanted`, unsubscribes once not. */
function reconcile(held: Map<string, Subscription>, wanted: boolean, agentId: string, subscribe: () => Subscription): void {
  const subscription = held.get(agentId);
  if (wanted && !subscription) held.set(agentId, subscribe());
  else if (!wanted && subscription) {
    subscription.unsubscribe();
    held.delete(agentId);
  }
}

function turnCall({ agentId, sessionId, callSid, direction, from, to, systemPrompt, transcript }: TurnCall): TurnCall {
  return { agentId, sessionId, callSid, direction, from, to, systemPrompt, transcript };
}
