// `switchboard tail --agent <id>` in its own process against a real server: an inbound message shows as a
// line within a second, and across a server stop and restart on the same data dir no entry is missed.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@switchboard/runtime/testing';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A running `switchboard tail`, its output as lines (with when each stdout line came), and its exit. */
interface Tail {
  readonly child: ChildProcess;
  readonly lines: { text: string; at: number }[];
  stderr(): string;
  stop(): Promise<number | null>;
}

function startTail(args: string[], env: Record<string, string>): Tail {
  const child = spawn(process.execPath, ['--conditions=switchboard-source', '--import', 'tsx', 'gateway/src/cli.ts', 'tail', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Tail['lines'] = [];
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const at = performance.now();
    const parts = (pending + chunk).split('\n');
    pending = parts.pop()!;
    for (const text of parts) lines.push({ text, at });
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('switchboard tail', () => {
  let t: TestGateway;
  let agent: Awaited<ReturnType<typeof provisionAgent>>;
  let tail: Tail | undefined;
  const customer = '+14155553001';

  before(async () => {
    // The simulator outside the gateway and a fixed port, so that a restart comes back at the same address.
    t = await startTestGateway({}, undefined, { externalProviders: true });
    agent = await provisionAgent(t, 'tail-a', ['sms']);
  });
  after(async () => {
    await tail?.stop();
    await t.close();
  });

  const inbound = async (body: string) => {
    const res = await t.sim.inbound.sms({ agentId: agent.agentId, from: customer, to: agent.channels.sms!.address, body });
    assert.equal(res.status, 200, `the webhook for ${body}`);
  };
  const printed = (body: string) => tail!.lines.filter((l) => l.text.includes(JSON.stringify(body)));

  it('prints an inbound message as one line within a second, and nothing from before it started', async () => {
    await inbound('before the tail');
    tail = startTail(['--agent', agent.agentId, '--url', t.url], { SWITCHBOARD_TOKEN: agent.securityToken });
    await eventually(() => /after cursor \d+/.test(tail!.stderr()), { timeoutMs: 60_000, message: () => `tail to start: ${tail!.stderr()}` });

    const sent = performance.now();
    await inbound('hello from the field');
    const acknowledged = performance.now();
    await eventually(() => printed('hello from the field').length === 1, { timeoutMs: 20_000, message: () => `the line: ${JSON.stringify(tail!.lines)} ${tail!.stderr()}` });
    const line = printed('hello from the field')[0]!;
    // The goal is under a second (one read every 250 ms once caught up); a loaded machine only gets the generous deadline above.
    console.log(`switchboard tail: the line came ${Math.round(line.at - sent)} ms after the webhook was sent (${Math.round(line.at - acknowledged)} ms after its 200)`);
    assert.match(line.text, new RegExp(`^\\S+Z  #\\d+  message\\.received  sms  <- \\${customer}  "hello from the field"$`));
    assert.equal(printed('before the tail').length, 0, 'by default tail starts at the newest entry');
  });

  it('misses nothing across a server stop and a restart on the same data dir', async () => {
    assert.ok(tail, 'the tail of the previous test runs');
    await inbound('just before the stop');
    await eventually(() => printed('just before the stop').length === 1, { timeoutMs: 20_000, message: 'the line before the stop' });

    await t.gateway.stop();
    await eventually(() => /reading again from cursor \d+/.test(tail!.stderr()), { timeoutMs: 20_000, message: () => `tail to see the server gone: ${tail!.stderr()}` });
    assert.equal(tail.child.exitCode, null, 'tail keeps running while the server is away');

    await t.restart();
    const bodies = ['after restart 1', 'after restart 2', 'after restart 3'];
    for (const body of bodies) await inbound(body);
    await eventually(() => bodies.every((body) => printed(body).length === 1), { timeoutMs: 30_000, message: () => `every line after the restart: ${JSON.stringify(tail!.lines.map((l) => l.text))}\n${tail!.stderr()}` });
    assert.match(tail.stderr(), /reconnected at cursor \d+/);

    // Every line once, in cursor order, no cursor skipped: the inbox holds exactly what tail printed since it started.
    const cursors = tail.lines.map((l) => Number(/ #(\d+) /.exec(l.text)?.[1]));
    assert.deepEqual(cursors, [...cursors].sort((a, b) => a - b));
    assert.equal(new Set(cursors).size, cursors.length, 'no line twice');
    const res = await t.call('GET', `/api/v1/inbox?after=${cursors[0]! - 1}&limit=500`, { token: agent.securityToken });
    const page = (await res.json()) as { entries: { cursor: number }[] };
    assert.deepEqual(cursors, page.entries.map((e) => e.cursor), 'tail printed every entry after its first');
    assert.equal(await tail.stop(), 0, 'SIGTERM ends tail with exit code 0');
    tail = undefined;
  });
});
