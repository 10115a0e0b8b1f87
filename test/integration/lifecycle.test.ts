import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startTestGateway } from '../helpers/gateway.js';
import { startServerProcess } from '../helpers/process.js';

describe('process lifecycle', () => {
  it('first start prints the orchestrator token once; a restart does not, and the token still works', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-cli-'));
    const first = await startServerProcess(['--data-dir', dataDir]);
    const token = /Orchestrator token \(shown once; store it now\): (\S+)/.exec(first.output())?.[1];
    assert.ok(token, first.output());
    assert.equal(await first.stop(), 0);
    assert.ok(!readFileSync(join(dataDir, 'switchboard.db')).includes(token!), 'the token is not stored in clear');

    const second = await startServerProcess(['--data-dir', dataDir]);
    try {
      assert.ok(!second.output().includes('Orchestrator token'), 'printed again');
      const res = await fetch(`${second.url}/admin/api/agents`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200);
    } finally {
      assert.equal(await second.stop('SIGINT'), 0);
    }
  });

  it('refuses to start on a bad setting, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-cli-'));
    const envFile = join(dir, 'bad.env');
    writeFileSync(envFile, 'SQLITE_SYNCHRONOUS=SOMETIMES\n');
    await assert.rejects(startServerProcess(['--data-dir', dir, '--env-file', envFile]), /SQLITE_SYNCHRONOUS must be one of FULL, NORMAL/);
  });

  it('graceful shutdown finishes requests in flight and refuses new connections', async () => {
    const t = await startTestGateway();
    const body = JSON.stringify({ agentId: 'in-flight', displayName: 'x', channels: ['sms'] });
    const half = Math.floor(body.length / 2);
    const socket = connect(t.gateway.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let answer = '';
    socket.on('data', (d) => (answer += d));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      `POST /api/v1/provision HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.teamToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, half)}`,
    );
    await new Promise((r) => setTimeout(r, 50));
    const stopping = t.gateway.stop();
    await new Promise((r) => setTimeout(r, 50));
    await assert.rejects(fetch(`${t.url}/health`), 'a new connection is refused while draining');
    socket.write(body.slice(half));
    await stopping;
    await closed;
    assert.match(answer, /^HTTP\/1\.1 201/);
    assert.ok(answer.includes('"agentId":"in-flight"'));
    await assert.rejects(t.gateway.runtime.inspect.stored.agent('in-flight'), /closed/, 'the store is closed after shutdown');
    await t.close();
  });
});
