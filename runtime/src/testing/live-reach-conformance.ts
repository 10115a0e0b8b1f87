import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LiveReach, LocalSessions, TurnCall } from '../agents/live-reach.js';
import type { AgentEvent } from '../delivery/agent-events.js';
import { eventually } from './eventually.js';

/**
 * A live reach to test: `server` is where a gateway serves the sessions it holds, `reacher` is what a
 * delivery or a call's turns go through (another process's, over NATS; the same object in process).
 */
export interface LiveReachUnderTest {
  readonly server: LiveReach;
  readonly reacher: LiveReach;
  close(): Promise<void>;
}

/** Sessions a test opens and closes: each takes events (or refuses them) and answers turns with a fixed text. */
class TestSessions implements LocalSessions {
  readonly held = new Map<string, { takes: boolean; answer?: string }>();
  readonly delivered: { agentId: string; event: AgentEvent }[] = [];

  async deliver(agentId: string, event: AgentEvent): Promise<boolean> {
    const session = this.held.get(agentId);
    if (!session?.takes) return false;
    this.delivered.push({ agentId, event });
    return true;
  }

  holds(agentId: string): boolean {
    return this.held.has(agentId);
  }

  sample(call: TurnCall): Promise<string> | undefined {
    const answer = this.held.get(call.agentId)?.answer;
    return answer === undefined ? undefined : Promise.resolve(answer);
  }

  samples(agentId: string): boolean {
    return this.held.get(agentId)?.answer !== undefined;
  }
}

function event(agentId: string, n: number): AgentEvent {
  return { id: `evt_conf_${n}`, type: 'message.inbound', agentId, createdAt: new Date().toISOString(), data: { n } } as unknown as AgentEvent;
}

function call(agentId: string): TurnCall {
  return { agentId, sessionId: 'ses_conf', callSid: 'CA_conf', direction: 'inbound', from: '+14155550100', to: '+14155550101', systemPrompt: null, transcript: [{ role: 'caller', text: 'hello', at: new Date().toISOString() }] };
}

/** Runs the cases every LiveReach adapter must pass. `create` gives a fresh server and reacher. */
export function describeLiveReachConformance(name: string, create: () => Promise<LiveReachUnderTest>): void {
  describe(`LiveReach conformance: ${name}`, () => {
    let reach: LiveReachUnderTest;
    const sessions = new TestSessions();
    let changed: (agentId: string) => void;
    let n = 0;
    before(async () => {
      reach = await create();
      changed = reach.server.serve(sessions);
    });
    after(async () => {
      await reach.close();
    });

    it('with no session anywhere nothing is delivered and no turn is answered', async () => {
      assert.equal(await reach.reacher.deliver('conf-nobody', event('conf-nobody', ++n)), false);
      assert.equal((await reach.reacher.sample(call('conf-nobody'), 2000)) ?? '', '');
      assert.equal(await reach.reacher.samples('conf-nobody'), false);
    });

    it('an event reaches the session that holds the agent, and a turn is answered by it', async () => {
      sessions.held.set('conf.a', { takes: true, answer: 'hi from conf.a' });
      changed('conf.a');
      assert.equal(reach.reacher.holds('conf.a'), true);
      await eventually(() => reach.reacher.samples('conf.a'), { message: 'the session answers turns' });
      const sent = event('conf.a', ++n);
      assert.equal(await reach.reacher.deliver('conf.a', sent), true);
      assert.deepEqual(sessions.delivered.at(-1), { agentId: 'conf.a', event: sent });
      assert.equal(await reach.reacher.sample(call('conf.a'), 2000), 'hi from conf.a');
    });

    it('a session that cannot take an event leaves it undelivered; one that does not sample answers no turn', async () => {
      sessions.held.set('conf-b', { takes: false });
      changed('conf-b');
      await eventually(
        async () => {
          sessions.held.set('conf-b', { takes: true });
          const taken = await reach.reacher.deliver('conf-b', event('conf-b', ++n));
          sessions.held.set('conf-b', { takes: false });
          return taken;
        },
        { message: 'the session is reached' },
      );
      const before = sessions.delivered.length;
      assert.equal(await reach.reacher.deliver('conf-b', event('conf-b', ++n)), false);
      assert.equal(sessions.delivered.length, before);
      assert.equal(await reach.reacher.samples('conf-b'), false);
      assert.equal((await reach.reacher.sample(call('conf-b'), 2000)) ?? '', '');
    });

    it("an inbox announcement reaches every follower with the agent's id, and none once unfollowed", async () => {
      const first: string[] = [];
      const second: string[] = [];
      const unfollowFirst = reach.server.followInboxes((agentId) => first.push(agentId));
      const unfollowSecond = reach.server.followInboxes((agentId) => second.push(agentId));
      // A follow may take a moment to reach the server: announce until both hear one.
      await eventually(
        async () => {
          reach.reacher.inboxChanged('conf.inbox-a');
          await new Promise((r) => setTimeout(r, 50));
          return first.includes('conf.inbox-a') && second.includes('conf.inbox-a');
        },
        { message: 'both followers hear the announcement' },
      );
      assert.ok(first.every((agentId) => agentId === 'conf.inbox-a'), `heard ${first.join(', ')}`);
      unfollowFirst();
      const heard = { first: first.length, second: second.length };
      reach.reacher.inboxChanged('conf-inbox-b');
      await eventually(async () => second.includes('conf-inbox-b'), { message: 'the one still following hears the next' });
      assert.equal(first.length, heard.first, 'an unfollowed listener heard an announcement');
      unfollowSecond();
      reach.reacher.inboxChanged('conf-inbox-c');
      await new Promise((r) => setTimeout(r, 200));
      assert.ok(!second.includes('conf-inbox-c'), 'a listener heard an announcement after it unfollowed');
    });

    it('once its session closes the agent is reached no more', async () => {
      sessions.held.set('conf-c', { takes: true, answer: 'hi' });
      changed('conf-c');
      await eventually(() => reach.reacher.samples('conf-c'), { message: 'the session answers turns' });
      sessions.held.delete('conf-c');
      changed('conf-c');
      await eventually(async () => !(await reach.reacher.samples('conf-c')), { message: 'the closed session answers no turn' });
      assert.equal(await reach.reacher.deliver('conf-c', event('conf-c', ++n)), false);
      assert.equal((await reach.reacher.sample(call('conf-c'), 2000)) ?? '', '');
    });
  });
}
