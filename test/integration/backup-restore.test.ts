// `switchboard backup` and `switchboard restore`: a copy taken while the server serves signed inbound
// load holds every message acknowledged before it began, and a restore is refused, or leaves nothing,
// where it must.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, copyFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { wavFile } from '@switchboard/sdk';
import { eventually } from '@switchboard/runtime/testing';
import { echoReply, startCallAnswerer } from '../helpers/callback-receiver.js';
import { provisionAgent, startTestGateway } from '../helpers/gateway.js';
import { startServerProcess, type ServerProcess } from '../helpers/process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Demo mode, the simulator on a port of its own: two servers run side by side here.
const ENV = { DEMO_MODE: 'true', SIMULATOR_PORT: '0' };

/** The CLI from source, in its own process, without blocking this one (the load goes on meanwhile). */
function switchboard(...args: string[]): Promise<{ status: number | null; output: string }> {
  return switchboardWith({}, ...args);
}

function switchboardWith(env: Record<string, string>, ...args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=switchboard-source', '--import', 'tsx', 'gateway/src/cli.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.once('exit', (status) => resolve({ status, output }));
  });
}

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

  it('a missing data dir, a damaged backup and a data dir in the way each get a clear refusal, and nothing half-written', async () => {
    assert.ok(existsSync(backupFile), 'the backup of the test above');
    const missing = await switchboard('backup', '--data-dir', join(dir, 'no-such-dir'), '--to', join(dir, 'never.tar.gz'));
    assert.equal(missing.status, 1, missing.output);
    assert.match(missing.output, /switchboard: NOT_FOUND: Data dir .*no-such-dir does not exist: name the data dir the server runs with/);
    assert.ok(!existsSync(join(dir, 'never.tar.gz')));
    // A cluster's store is PostgreSQL's to back up: refused, with where the procedure is.
    const cluster = await switchboardWith({ DATABASE_URL: 'postgres://127.0.0.1:5432/switchboard' }, 'backup', '--data-dir', restored, '--to', join(dir, 'never.tar.gz'));
    assert.equal(cluster.status, 1, cluster.output);
    assert.match(cluster.output, /switchboard: CONFLICT: DATABASE_URL is set: .*pg_dump or pg_basebackup.*docs\/cluster\.md, "Backups"/);
    assert.ok(!existsSync(join(dir, 'never.tar.gz')));

    // Cut short, not gzip at all, a tar without a manifest: refused, and the target dir is as it was (absent, or empty).
    const truncated = join(dir, 'truncated.tar.gz');
    copyFileSync(backupFile, truncated);
    truncateSync(truncated, Math.floor(statSync(backupFile).size / 2));
    const garbage = join(dir, 'garbage.tar.gz');
    writeFileSync(garbage, Buffer.from('this is not a backup\n'.repeat(200)));
    const stranger = join(dir, 'stranger.tar.gz');
    writeFileSync(join(dir, 'notes.txt'), 'hello');
    assert.equal(spawnSync('tar', ['-czf', stranger, '-C', dir, 'notes.txt']).status, 0, 'tar(1) made an archive');
    const empty = join(dir, 'empty-dir');
    mkdirSync(empty);
    for (const [file, target, reason] of [
      [truncated, join(dir, 'fresh'), /it is not a readable gzipped tar \(.*\)/],
      [garbage, empty, /it is not a readable gzipped tar \(.*\)/],
      [stranger, join(dir, 'fresh'), /it holds no manifest\.json, so it is not a Switchboard backup/],
    ] as const) {
      const r = await switchboard('restore', '--from', file, '--data-dir', target);
      assert.equal(r.status, 1, r.output);
      assert.match(r.output, new RegExp(`switchboard: MALFORMED_PAYLOAD: .* cannot be restored: ${reason.source}\\. The file may be truncated or damaged; nothing was written`));
      if (target === empty) assert.deepEqual(readdirSync(empty), [], `${file}: the empty data dir is left empty`);
      else assert.ok(!existsSync(target), `${file}: the data dir the restore would have made is not there`);
    }

    // A data dir that holds a store: refused without --force; with it, the backup's store replaces it.
    const inTheWay = await switchboard('restore', '--from', backupFile, '--data-dir', restored);
    assert.equal(inTheWay.status, 1, inTheWay.output);
    assert.match(inTheWay.output, /switchboard: CONFLICT: Data dir .*restored is not empty \(it holds .*switchboard\.db.*\): restore into a new or empty folder, or add --force/);
    writeFileSync(join(restored, 'recordings', 'ses_notInTheBackup.wav'), wavFile(Buffer.alloc(800), 8000));
    const forced = await switchboard('restore', '--from', backupFile, '--data-dir', restored, '--force');
    assert.equal(forced.status, 0, forced.output);
    assert.deepEqual(readdirSync(join(restored, 'recordings')), ['ses_backupTestRecording.wav'], 'the recordings are the backup\u2019s');
    assert.ok(!readdirSync(restored).some((name) => name.startsWith('.restore-')), 'no unpacking folder is left');
  });
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
