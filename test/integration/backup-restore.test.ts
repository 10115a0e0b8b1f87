// `switchboard backup` while the server serves signed inbound load: the restored copy holds every message
// acknowledged before the backup began (refusals: backup-refusals.test.ts; recordings: backup-recordings.test.ts).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { wavFile } from '@switchboard/sdk';
import { eventually } from '@switchboard/runtime/testing';
import { startServerProcess, type ServerProcess } from '../helpers/process.js';
import { runCli } from '../helpers/switchboard-cli.js';

// Demo mode, the simulator on a port of its own: two servers run side by side here.
const ENV = { DEMO_MODE: 'true', SIMULATOR_PORT: '0' };

const switchboard = (...args: string[]) => runCli(args, ENV);

async function json<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

type Agent = { agentId: string; securityToken: string; channels: { sms: { address: string } } };
type Page = { entries: { cursor: number; counterpart: string; payload: { body: string } }[]; nextCursor: number; hasMore: boolean };

/** Every body in the agent's inbox, page by page. */
async function inbox(url: string, token: string): Promise<string[]> {
  const bodies: string[] = [];
  for (let after: number | undefined; ; ) {
    const res = await fetch(`${url}/api/v1/inbox?limit=100${after === undefined ? '' : `&after=${after}`}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    const page = await json<Page>(res);
    bodies.push(...page.entries.map((e) => e.payload.body));
    if (!page.hasMore) return bodies;
    after = page.nextCursor;
  }
}

describe('switchboard backup and restore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-backup-'));
  const dataDir = join(dir, 'data');
  const restored = join(dir, 'restored');
  const backupFile = join(dir, 'switchboard-backup.tar.gz');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('backs up while the server takes signed inbound webhooks; the restored data dir serves every message acknowledged before the backup began', async () => {
    let server: ServerProcess | undefined = await startServerProcess(['--data-dir', dataDir], ENV);
    let loadStopped = false;
    let load: Promise<unknown> = Promise.resolve();
    try {
      const orchestrator = /Orchestrator token \(shown once; store it now\): (\S+)/.exec(server.output())![1]!;
      const simUrl = /Simulator: (\S+)\/_sim/.exec(server.output())![1]!;
      const agents: Agent[] = [];
      for (const agentId of ['backup-a', 'backup-b']) {
        const res = await fetch(`${server.url}/api/v1/provision`, {
          method: 'POST',
          headers: { authorization: `Bearer ${orchestrator}`, 'content-type': 'application/json' },
          body: JSON.stringify({ agentId, displayName: agentId, channels: ['sms', 'voice'] }),
        });
        assert.equal(res.status, 201);
        agents.push(await json(res));
      }
      // Audio the backup carries: a voice message the server synthesised, and a file in the recordings folder.
      const voiceMessage = await fetch(`${server.url}/api/v1/send-voice-message`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agents[0]!.securityToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to: '+14155550190', text: 'This message is kept in the backup.' }),
      });
      assert.equal(voiceMessage.status, 200, await voiceMessage.clone().text());
      const [voiceFile] = readdirSync(join(dataDir, 'voice-messages'));
      assert.ok(voiceFile, 'the voice message is stored');
      const voiceBytes = readFileSync(join(dataDir, 'voice-messages', voiceFile));
      mkdirSync(join(dataDir, 'recordings'), { recursive: true, mode: 0o700 });
      const recording = wavFile(Buffer.alloc(16_000, 7), 8000);
      writeFileSync(join(dataDir, 'recordings', 'ses_backupTestRecording.wav'), recording, { mode: 0o600 });

      // Four senders, each a conversation with one agent, each waiting for its 200 (the acknowledgement) before the next.
      const acked: { body: string; agent: number; at: number }[] = [];
      const sentAfter: { body: string; agent: number }[] = [];
      let backupEnded = Infinity;
      const sender = async (w: number) => {
        const agent = agents[w % 2]!;
        for (let i = 0; !loadStopped; i++) {
          const body = `backup load ${w} ${i}`;
          const sentAt = Date.now();
          const res = await fetch(`${simUrl}/_sim/inbound/sms`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ agentId: agent.agentId, from: `+1415555020${w}`, to: agent.channels.sms.address, body }),
          }).then((r) => json<{ status: number }>(r));
          assert.equal(res.status, 200, `the gateway answered the signed webhook ${res.status}`);
          acked.push({ body, agent: w % 2, at: Date.now() });
          if (sentAt > backupEnded) sentAfter.push({ body, agent: w % 2 });
        }
      };
      load = Promise.all([0, 1, 2, 3].map(sender));
      await eventually(() => acked.length >= 40, { timeoutMs: 60_000, message: () => `40 acknowledged webhooks before the backup (${acked.length})` });

      const backupBegan = Date.now();
      const backup = await switchboard('backup', '--data-dir', dataDir, '--to', backupFile);
      backupEnded = Date.now();
      assert.equal(backup.status, 0, backup.output);
      assert.match(backup.output, /^Backing up .*data to .*switchboard-backup\.tar\.gz$/m);
      assert.match(backup.output, /^store: copied \(\d+(?:\.\d)? [KM]iB, \d+ pages\) in .* s, as of /m, 'a progress line for the store');
      assert.match(backup.output, /Backup written: .*switchboard-backup\.tar\.gz .*1 recordings, 1 voice messages/);
      const during = acked.filter((a) => a.at > backupBegan && a.at < backupEnded).length;
      assert.ok(during > 0, 'webhooks were acknowledged while the backup ran');
      assert.equal(statSync(backupFile).mode & 0o777, 0o600, 'the backup holds message bodies and the key: for its owner only');
      await eventually(() => sentAfter.length >= 4, { timeoutMs: 30_000, message: () => `webhooks sent after the backup ended (${sentAfter.length})` });

      // The data dir is in use: a restore into it is refused and changes nothing.
      const refused = await switchboard('restore', '--from', backupFile, '--data-dir', dataDir);
      assert.equal(refused.status, 1, refused.output);
      assert.match(refused.output, /switchboard: CONFLICT: Data dir .*data is in use by a running Switchboard server \(pid \d+\): .*Stop that server first, or restore into another --data-dir/);

      loadStopped = true;
      await load;
      const before = acked.filter((a) => a.at < backupBegan);
      assert.equal(await server.stop(), 0);
      server = undefined;

      const restore = await switchboard('restore', '--from', backupFile, '--data-dir', restored);
      assert.equal(restore.status, 0, restore.output);
      assert.match(restore.output, /Restored into .*restored: the store as of .*, 1 recordings, 1 voice messages\./);
      assert.equal(statSync(join(restored, 'secret.key')).mode & 0o777, 0o600);

      server = await startServerProcess(['--data-dir', restored], ENV);
      assert.doesNotMatch(server.output(), /Orchestrator token \(shown once/, 'the restored store has its orchestrator token');
      const status = await fetch(`${server.url}/admin/api/status`, { headers: { authorization: `Bearer ${orchestrator}` } });
      assert.equal(status.status, 200, 'the orchestrator token of the backed-up server works on the restored one');
      for (const [a, agent] of agents.entries()) {
        const found: Set<string> = new Set(await inbox(server.url, agent.securityToken));
        const missing: string[] = before.filter((m) => m.agent === a && !found.has(m.body)).map((m) => m.body);
        assert.deepEqual(missing, [], `${agent.agentId}: acknowledged before the backup began, missing after the restore`);
        const later: string[] = sentAfter.filter((m) => m.agent === a && found.has(m.body)).map((m) => m.body);
        assert.deepEqual(later, [], `${agent.agentId}: sent after the backup ended, yet in it`);
      }
      const audio = await fetch(`${server.url}/media/voice-messages/${voiceFile}`);
      assert.equal(audio.status, 200);
      assert.ok(Buffer.from(await audio.arrayBuffer()).equals(voiceBytes), 'the restored server serves the voice message');
      assert.ok(readFileSync(join(restored, 'recordings', 'ses_backupTestRecording.wav')).equals(recording), 'the recording is restored');
      console.log(
        `backup under load: ${before.length} webhooks acknowledged before it began, ${during} while it ran; every one of the first after the restore`,
      );
    } finally {
      loadStopped = true;
      await load.catch(() => undefined);
      await server?.stop();
    }
  });
});
