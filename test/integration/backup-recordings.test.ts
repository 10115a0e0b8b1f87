// A call's recording, made by a server, through `switchboard backup` and `switchboard restore`: the
// restored server serves the same audio.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import { echoReply, startCallAnswerer } from '../helpers/callback-receiver.js';
import { provisionAgent, startTestGateway } from '../helpers/gateway.js';
import { startServerProcess, type ServerProcess } from '../helpers/process.js';
import { runCli } from '../helpers/switchboard-cli.js';

const ENV = { DEMO_MODE: 'true', SIMULATOR_PORT: '0' };
const switchboard = (...args: string[]) => runCli(args, ENV);

describe('switchboard backup and restore: call recordings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-backup-recordings-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a call's recording, made by the server, is in the backup and served by the restored server", async () => {
    const t = await startTestGateway({ VOICE_MODE: 'relay' });
    const agent = await provisionAgent(t, 'backup-caller', ['voice']);
    const receiver = await startCallAnswerer((callbackUrl) => t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl } }), echoReply);
    let server: ServerProcess | undefined;
    try {
      t.sim.deepgram.registerPhrase('keep this call in the backup');
      t.sim.phone.onOutbound('+14155550877', { steps: ['keep this call in the backup'], replyTimeoutMs: 8000 });
      const res = await t.call('POST', '/api/v1/make-call', { token: agent.securityToken, json: { to: '+14155550877', mode: 'stream', record: true, greeting: 'This call is recorded.' } });
      assert.equal(res.status, 200, await res.clone().text());
      const { callSid } = (await res.json()) as { callSid: string };
      await t.sim.phone.get(callSid)!.done;
      const original = await eventually(
        async () => {
          const audio = await t.call('GET', `/api/v1/calls/${callSid}/recording`, { token: agent.securityToken });
          return audio.status === 200 ? Buffer.from(await audio.arrayBuffer()) : (await audio.arrayBuffer(), undefined);
        },
        { timeoutMs: 20_000, message: 'the call\u2019s recording to be stored' },
      );

      const file = join(dir, 'recorded-call.tar.gz');
      const backup = await switchboard('backup', '--data-dir', t.dataDir, '--to', file);
      assert.equal(backup.status, 0, backup.output);
      assert.match(backup.output, /, 1 recordings, /);
      assert.equal(readdirSync(join(t.dataDir, 'recordings')).length, 1, 'the server\u2019s own recordings are untouched by the backup');
      const target = join(dir, 'recorded-call-restored');
      const restore = await switchboard('restore', '--from', file, '--data-dir', target);
      assert.equal(restore.status, 0, restore.output);

      server = await startServerProcess(['--data-dir', target], ENV);
      const audio = await fetch(`${server.url}/api/v1/calls/${callSid}/recording`, { headers: { authorization: `Bearer ${agent.securityToken}` } });
      assert.equal(audio.status, 200);
      assert.ok(Buffer.from(await audio.arrayBuffer()).equals(original), 'the restored server serves the same recording');
    } finally {
      await server?.stop();
      await receiver.close();
      await t.close();
    }
  });
});
