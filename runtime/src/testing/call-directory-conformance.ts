import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CallDirectory } from '../voice/call-directory.js';
import { newSessionId, type CallSession } from '../voice/call-session.js';

/**
 * A call directory to test: `writer` is where the process admitting a call puts its session, `reader`
 * where the process taking its media connection looks it up (another connection in a cluster; the
 * same object in process).
 */
export interface CallDirectoryUnderTest {
  readonly writer: CallDirectory;
  readonly reader: CallDirectory;
  close(): Promise<void>;
}

function session(): CallSession {
  return {
    sessionId: newSessionId(),
    agentId: 'conf.agent',
    callSid: null,
    direction: 'outbound',
    mode: 'relay',
    from: '+14155550100',
    to: '+14155550101',
    greeting: 'Hello',
    systemPrompt: 'Be brief.',
    voice: null,
    language: 'en-US',
    purpose: { kind: 'secretary', requesterPhone: '+14155550102', message: 'About tomorrow' },
    transcript: [],
    startedAt: Date.now(),
    ended: false,
  };
}

/** What a reader must see of a stored session: everything but its live state. */
function stored({ ended: _ended, ...rest }: CallSession): Omit<CallSession, 'ended'> {
  return rest;
}

/** Runs the cases every CallDirectory adapter must pass. `create` gives a fresh writer and reader. */
export function describeCallDirectoryConformance(name: string, create: () => Promise<CallDirectoryUnderTest>): void {
  describe(`CallDirectory conformance: ${name}`, () => {
    let directory: CallDirectoryUnderTest;
    before(async () => {
      directory = await create();
    });
    after(async () => {
      await directory.close();
    });

    it('a session put by one process is found by another, as it was put, and not ended', async () => {
      const s = session();
      s.callSid = 'CA0123456789abcdef';
      await directory.writer.put(s);
      const found = await directory.reader.get(s.sessionId);
      assert.ok(found);
      assert.deepEqual(stored(found), stored(s));
      assert.equal(found.ended, false);
    });

    it('a session put again is found as put last', async () => {
      const s = session();
      await directory.writer.put(s);
      s.callSid = 'CAfedcba9876543210';
      await directory.writer.put(s);
      assert.equal((await directory.reader.get(s.sessionId))?.callSid, 'CAfedcba9876543210');
    });

    it('a deleted session, an unknown one and a malformed id are not found', async () => {
      const s = session();
      await directory.writer.put(s);
      await directory.writer.delete(s.sessionId);
      assert.equal(await directory.reader.get(s.sessionId), undefined);
      assert.equal(await directory.reader.get(newSessionId()), undefined);
      assert.equal(await directory.reader.get('../not a session.id'), undefined);
    });

    it('deleting a session nobody put is harmless', async () => {
      await directory.writer.delete(newSessionId());
    });
  });
}
