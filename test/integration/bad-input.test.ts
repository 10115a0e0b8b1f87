import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

async function errorOf(res: Response): Promise<{ status: number; code: string; error: string }> {
  const body = (await res.json()) as { code: string; error: string };
  return { status: res.status, code: body.code, error: body.error };
}

/** Sends raw bytes and returns the status line's code. */
function rawStatus(port: number, payload: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(payload));
    let data = '';
    socket.on('data', (d) => {
      data += d.toString();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      if (m) {
        socket.destroy();
        resolve(Number(m[1]));
      }
    });
    socket.on('error', reject);
    socket.setTimeout(5000, () => reject(new Error('no answer')));
  });
}

describe('bad input gets a clear error, never a crash', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway({ BODY_LIMIT_BYTES: 4096 });
  });
  after(() => t.close());

  const provision = (json: unknown, headers?: Record<string, string>) => t.call('POST', '/api/v1/provision', { token: t.teamToken, json, ...(headers ? { headers } : {}) });

  it('malformed JSON is 400 BAD_REQUEST', async () => {
    const res = await t.call('POST', '/api/v1/provision', { token: t.teamToken, body: '{"agentId":', headers: { 'content-type': 'application/json' } });
    assert.deepEqual((({ status, code }) => ({ status, code }))(await errorOf(res)), { status: 400, code: 'BAD_REQUEST' });
  });

  it('a wrong content type is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await t.call('POST', '/api/v1/provision', { token: t.teamToken, body: 'agentId=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.deepEqual((({ status, code }) => ({ status, code }))(await errorOf(res)), { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('missing and malformed fields are 400 VALIDATION_FAILED naming the field', async () => {
    const missing = await errorOf(await provision({ agentId: 'v-1', channels: ['sms'] }));
    assert.equal(missing.status, 400);
    assert.equal(missing.code, 'VALIDATION_FAILED');
    assert.match(missing.error, /displayName is required/);
    const badChannel = await errorOf(await provision({ agentId: 'v-1', displayName: 'x', channels: ['pager'] }));
    assert.equal(badChannel.code, 'VALIDATION_FAILED');
    const badId = await errorOf(await provision({ agentId: '-bad id', displayName: 'x', channels: ['sms'] }));
    assert.match(badId.error, /agentId/);
    const notObject = await errorOf(await provision([1, 2]));
    assert.equal(notObject.code, 'VALIDATION_FAILED');
  });

  it('unknown fields are ignored', async () => {
    const res = await provision({ agentId: 'v-extra', displayName: 'x', channels: ['line'], favouriteColour: 'teal' });
    assert.equal(res.status, 201);
  });

  it('a callback URL must be https, or http to loopback outside production', async () => {
    const res = await errorOf(await provision({ agentId: 'v-cb', displayName: 'x', channels: ['line'], callbackUrl: 'http://example.com/hook' }));
    assert.equal(res.code, 'VALIDATION_FAILED');
    assert.match(res.error, /https/);
  });

  it('a body over the limit is 413 PAYLOAD_TOO_LARGE, by Content-Length and by streaming', async () => {
    const big = { agentId: 'v-big', displayName: 'x'.repeat(5000), channels: ['sms'] };
    const res = await errorOf(await provision(big));
    assert.deepEqual([res.status, res.code], [413, 'PAYLOAD_TOO_LARGE']);
    const chunked = await rawStatus(
      t.gateway.port,
      `POST /api/v1/provision HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.teamToken}\r\nContent-Type: application/json\r\nContent-Length: 9000\r\n\r\n${'x'.repeat(9000)}`,
    );
    assert.equal(chunked, 413);
    const agents = await t.gateway.runtime.store.agents.list();
    assert.ok(!agents.some((a) => a.agentId === 'v-big'), 'nothing stored from a refused request');
  });

  it('an aborted request does not crash the server', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(t.gateway.port, '127.0.0.1', () => {
        socket.write(`POST /api/v1/provision HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.teamToken}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"agentId":`);
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    assert.equal((await t.call('GET', '/health')).status, 200);
  });

  it('an oversized Idempotency-Key is refused', async () => {
    const res = await errorOf(await provision({ agentId: 'v-key', displayName: 'x', channels: ['line'] }, { 'idempotency-key': 'k'.repeat(300) }));
    assert.equal(res.code, 'VALIDATION_FAILED');
  });
});
