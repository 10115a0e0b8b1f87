import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpSession } from '../../src/mcp/mcp-session.js';
import { connectSse, startMcpHarness, TOKENS, type McpHarness } from './mcp-harness.js';
import { eventually } from '@switchboard/runtime/testing';

const LIMIT = 256 * 1024;
const CHUNK = 'x'.repeat(64 * 1024);

/** A raw TCP SSE client: it reads the endpoint event, then reads only when told to. */
class RawSocketClient {
  readonly socket: net.Socket;
  received = 0;
  closed = false;
  #text = '';

  constructor(port: number, path: string) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('data', (chunk) => {
      this.received += chunk.length;
      if (this.#text.length < 4096) this.#text += chunk.toString('latin1');
    });
    this.socket.on('close', () => (this.closed = true));
    this.socket.on('error', () => undefined);
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
  }

  async sessionId(): Promise<string> {
    await eventually(() => /sessionId=([0-9a-f-]{36})/.test(this.#text), { message: 'the endpoint event' });
    return /sessionId=([0-9a-f-]{36})/.exec(this.#text)![1]!;
  }
}

const notification = (data: unknown) => ({ method: 'notifications/message' as const, params: { level: 'info' as const, logger: 'switchboard.inbound', data } });

describe('SSE back-pressure', () => {
  let harness: McpHarness;
  before(async () => {
    harness = await startMcpHarness({ maxBufferedBytes: LIMIT, keepAliveMs: 20 });
  });
  after(async () => {
    await harness.close();
  });

  /** Opens a raw session and initializes it over POST, so it goes live for `agentId`. */
  async function liveRawSession(agentId: string): Promise<{ client: RawSocketClient; session: McpSession }> {
    const client = new RawSocketClient(harness.port, `/sse?token=${TOKENS.team}&agentId=${agentId}`);
    const sessionId = await client.sessionId();
    const post = (body: unknown) =>
      fetch(`${harness.url}/messages?sessionId=${sessionId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKENS.team}` },
        body: JSON.stringify(body),
      });
    const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } };
    assert.equal((await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init })).status, 202);
    assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
    await eventually(() => harness.sessions.sessionFor(agentId) !== undefined, { message: `${agentId} live` });
    return { client, session: harness.sessions.sessionFor(agentId)! };
  }

  it('disconnects a client that stops reading, and every send settles: written, or refused', async () => {
    const { client, session } = await liveRawSession('stalled');
    client.socket.pause();
    const outcomes = await Promise.all(
      Array.from({ length: 320 }, (_, i) =>
        session.notify(notification({ i, pad: CHUNK })).then(
          () => 'written' as const,
          (err: Error & { code?: string; reason?: string }) => err,
        ),
      ),
    );
    const written = outcomes.filter((o) => o === 'written').length;
    const refused = outcomes.filter((o): o is Error & { code?: string; reason?: string } => o !== 'written');
    assert.ok(written > 0, 'the kernel took the first messages');
    assert.ok(refused.length > 0, 'the rest were refused, not dropped');
    assert.ok(
      refused.some((err) => err.code === 'STREAM_CLOSED' && err.reason === 'overflow'),
      'a send was refused because the buffer limit was passed',
    );
    assert.deepEqual(outcomes.slice(written).filter((o) => o === 'written'), [], 'nothing after the first refusal was reported written');
    assert.equal(session.closed, true);
    assert.equal(harness.sessions.sessionFor('stalled'), undefined);
    client.socket.resume();
    await eventually(() => client.closed, { message: 'the client is disconnected' });
  });

  it('lets a reading client take far more than the limit when each send is awaited', async () => {
    const { client } = await connectSse(harness.url, { token: TOKENS.team, agentId: 'reader' });
    let received = 0;
    client.setNotificationHandler(LoggingMessageNotificationSchema, () => void received++);
    try {
      await eventually(() => harness.sessions.sessionFor('reader') !== undefined, { message: 'reader live' });
      const session = harness.sessions.sessionFor('reader')!;
      for (let i = 0; i < 40; i++) await session.notify(notification({ i, pad: CHUNK }));
      await eventually(() => received === 40, { message: 'all 40 notifications' });
      assert.equal(session.closed, false);
    } finally {
      await client.close();
    }
  });

  it('never touches a response after the client went away', async () => {
    const { client, session } = await liveRawSession('vanishing');
    client.socket.destroy();
    await eventually(() => session.closed, { message: 'the session closes on abort' });
    assert.equal(harness.sessions.sessionFor('vanishing'), undefined);
    await assert.rejects(session.notify(notification('late')));
    // Keep-alives run every 20 ms; a write to the aborted uWS response would throw out of the timer.
    await new Promise((resolve) => setTimeout(resolve, 100));
  });
});
