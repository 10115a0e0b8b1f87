// A third-party driver, installed the way an operator installs one: `npm pack` of drivers/example
// (which is not a workspace package) unpacked into the node_modules of a project directory outside
// the workspace, named only by DRIVERS in that directory's .env. A real `switchboard start` runs
// there; an agent is provisioned on the driver's channel, sends through it and receives through it.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startFakeProvider, type FakeProvider } from '../../drivers/example/test/provider.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGE = '@switchboard/driver-example';
const NUMBER = '+12025550188';
const CUSTOMER = '+14155550123';
const ORCHESTRATOR = `sb_orch_e2e_${randomBytes(24).toString('base64url')}`;

/** `switchboard start` from source in `cwd`; resolves once it prints its API URL, rejects with its output if it exits first. */
function startSwitchboard(cwd: string, env: Record<string, string> = {}) {
  const tsx = import.meta.resolve('tsx');
  const child = spawn(process.execPath, ['--conditions=switchboard-source', '--import', tsx, join(ROOT, 'gateway/src/cli.ts'), 'start', '--port', '0'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`switchboard did not start in 60 s:\n${output}`)), 60_000);
    child.stdout!.on('data', () => {
      const m = /API:\s+(http:\/\/[^/\s]+)\/api\/v1/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`switchboard exited with ${code}:\n${output}`));
    });
  });
  url.catch(() => {});
  return {
    child,
    url,
    exited,
    output: () => output,
    async stop(): Promise<void> {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

describe('a third-party driver named only by DRIVERS', { timeout: 240_000 }, () => {
  let project: string;
  let provider: FakeProvider;
  let server: ReturnType<typeof startSwitchboard> | undefined;
  let url: string;
  const children: ChildProcess[] = [];

  const api = async (method: string, path: string, token: string, json?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  before(async () => {
    // The driver is not a workspace package: nothing in the workspace can import it by name.
    assert.equal(existsSync(join(ROOT, 'node_modules', PACKAGE)), false, `${PACKAGE} must not be linked into the workspace's node_modules`);
    const gatewayPackage = JSON.parse(readFileSync(join(ROOT, 'gateway/package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    assert.equal({ ...gatewayPackage.dependencies, ...gatewayPackage.devDependencies }[PACKAGE], undefined, 'the gateway must not depend on the example driver');

    project = mkdtempSync(join(tmpdir(), 'switchboard-operator-'));
    // npm pack runs the package's prepack (its build) and takes exactly the files it would publish.
    await run('npm', ['pack', '--pack-destination', project, '--silent'], { cwd: join(ROOT, 'drivers/example'), timeout: 180_000 });
    const tarball = readdirSync(project).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack wrote a tarball');
    const installed = join(project, 'node_modules', PACKAGE);
    mkdirSync(installed, { recursive: true });
    await run('tar', ['-xzf', join(project, tarball), '-C', installed, '--strip-components=1']);
    assert.equal(existsSync(join(installed, 'src')), false, 'only the published files are installed');
    // Its dependency range ^0.1.0 is met by the sdk Switchboard itself ships, as npm would dedupe it.
    symlinkSync(join(ROOT, 'sdk'), join(project, 'node_modules', '@switchboard', 'sdk'), 'dir');

    provider = await startFakeProvider();
    writeFileSync(
      join(project, '.env'),
      [
        `DRIVERS=${PACKAGE}`,
        `DRIVER_EXAMPLE_API_KEY=${provider.apiKey}`,
        `DRIVER_EXAMPLE_WEBHOOK_SECRET=${provider.webhookSecret}`,
        `DRIVER_EXAMPLE_BASE_URL=${provider.url}`,
        `POOL_PHONE_NUMBERS=${NUMBER}`,
        `ORCHESTRATOR_TOKEN=${ORCHESTRATOR}`,
        '',
      ].join('\n'),
    );
    server = startSwitchboard(project);
    children.push(server.child);
    url = await server.url;
  });

  after(async () => {
    await server?.stop();
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await provider?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  let agentToken: string;

  it('loads the installed copy and gives it the sms channel', async () => {
    assert.match(server!.output(), /start-up: drivers loaded/);
    assert.match(server!.output(), /@switchboard\/driver-example@0\.1\.0/);
    const health = await fetch(`${url}/health`);
    assert.equal(((await health.json()) as { demoMode: boolean }).demoMode, false, 'DRIVERS turns demo mode off');
  });

  it('provisions an agent on the driver\'s channel', async () => {
    const team = await api('GET', '/admin/api/my-token', ORCHESTRATOR);
    assert.equal(team.status, 200);
    const res = await api('POST', '/api/v1/provision', team.body.token, { agentId: 'fax-agent', displayName: 'Fax agent', channels: ['sms'] });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.channels.sms.address, NUMBER);
    agentToken = res.body.securityToken;
    const status = await api('GET', '/api/v1/channel-status?agentId=fax-agent', agentToken);
    assert.equal(status.body.channels.sms.provider, 'example');
  });

  it('sends through the driver to its provider', async () => {
    const res = await api('POST', '/api/v1/send-message', agentToken, { channel: 'sms', to: CUSTOMER, body: 'Sent through a third-party driver' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const sent = provider.messages.find((m) => m.id === res.body.externalId);
    assert.ok(sent, 'the provider stand-in received the message');
    assert.deepEqual({ from: sent.from, to: sent.to, body: sent.body }, { from: NUMBER, to: CUSTOMER, body: 'Sent through a third-party driver' });
  });

  it('receives through the driver: a signed webhook is verified, stored and waits for the agent; a forged one is refused', async () => {
    const hook = `${url}/webhooks/fax-agent/sms`;
    const payload = {
      type: 'message.received',
      id: 'evt_e2e_1',
      message: { id: 'in_e2e_1', from: CUSTOMER, to: NUMBER, body: 'Answer through the driver', received_at: new Date().toISOString() },
    };
    const signed = provider.webhook(payload, { url: hook });
    const forged = await fetch(hook, { method: 'POST', headers: { ...signed.headers, 'x-example-signature': 't=1,v1=AAAA' }, body: signed.rawBody });
    assert.equal(forged.status, 403);
    const res = await fetch(hook, { method: 'POST', headers: signed.headers, body: signed.rawBody });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { received: true });
    const waiting = await api('GET', '/api/v1/waiting-messages?agentId=fax-agent', agentToken);
    assert.equal(waiting.status, 200);
    const messages = waiting.body.messages as { body: string; from: string; channel: string }[];
    assert.deepEqual(
      messages.map((m) => [m.channel, m.from, m.body]),
      [['sms', CUSTOMER, 'Answer through the driver']],
    );
  });

  it('stops at start with DRIVER_CONFLICT naming SMS_DRIVER when the driver and the built-in Twilio driver both offer sms', async () => {
    const dir = mkdtempSync(join(project, 'conflict-'));
    symlinkSync(join(project, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, '.env'), `DEMO_MODE=true\nDRIVERS=${PACKAGE}\nDRIVER_EXAMPLE_API_KEY=${provider.apiKey}\nDRIVER_EXAMPLE_WEBHOOK_SECRET=${provider.webhookSecret}\n`);
    const clash = startSwitchboard(dir);
    children.push(clash.child);
    const code = await clash.exited;
    assert.equal(code, 1, clash.output());
    assert.match(clash.output(), /DRIVER_CONFLICT: Drivers .* both offer sms; set SMS_DRIVER/);
  });
});
