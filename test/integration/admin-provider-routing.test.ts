// The operator changes a channel's provider order and SMS prefix routes (PUT /admin/api/providers/routing):
// saved to the env file like every setting (validated against the loaded drivers), shown as saved on the
// board until a deploy, and serving after it. Embedded only: saving needs a server started from an env
// file (the setup tests' Deployment), and a cluster's runtime nodes keep their own settings (docs/DECISIONS.md).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parseEnv } from 'node:util';
import { eventually } from '@switchboard/runtime/testing';
import { startSimulator, type Simulator } from '@switchboard/provider-simulator';
import { startTestDeployment, type TestDeployment } from '../helpers/deployment.js';
import { twoSmsProvidersEnv } from '../helpers/sms-providers-env.js';

interface Channel {
  channel: string;
  providers: { provider: string }[];
  routes: { prefix: string; providers: string[] }[];
  available: string[];
  saved?: { providers: string[]; routes: { prefix: string; providers: string[] }[] };
}

describe('admin provider routing: save, validate, deploy', { timeout: 120_000 }, () => {
  let sim: Simulator;
  let t: TestDeployment;

  before(async () => {
    sim = await startSimulator({ phoneNumbers: ['+12025550100', '+15555550102'] });
    t = await startTestDeployment(twoSmsProvidersEnv(sim));
  });
  after(async () => {
    await t?.close();
    await sim?.close();
  });

  const sms = async () => {
    const res = await t.call('GET', '/admin/api/providers', { token: t.orchestratorToken });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { channels: Channel[] }).channels.find((c) => c.channel === 'sms')!;
  };
  const put = (json: unknown, token = t.orchestratorToken) => t.call('PUT', '/admin/api/providers/routing', { token, json });
  const fileSettings = () => parseEnv(readFileSync(t.envFile, 'utf8')) as Record<string, string>;

  it('serves the order and routes of the env file, with nothing saved pending', async () => {
    const c = await sms();
    assert.deepEqual(c.providers.map((p) => p.provider), ['twilio', 'telnyx']);
    assert.deepEqual(c.routes, [{ prefix: '+44', providers: ['telnyx', 'twilio'] }]);
    assert.deepEqual(c.available, []);
    assert.equal(c.saved, undefined);
  });

  it('refuses what the drivers or the contract do not allow, with a coded body, and writes nothing', async () => {
    const before = readFileSync(t.envFile, 'utf8');
    const cases: [unknown, number, string, RegExp][] = [
      [{ channels: [{ channel: 'sms', providers: ['twilio', 'vonage'] }] }, 400, 'VALIDATION_FAILED', /vonage is not a loaded sms provider \(loaded: twilio, telnyx\)/],
      [{ channels: [{ channel: 'sms', providers: ['twilio', 'twilio'] }] }, 400, 'VALIDATION_FAILED', /named twice/],
      [{ channels: [{ channel: 'sms', providers: [] }] }, 400, 'VALIDATION_FAILED', /at least one provider/],
      [{ channels: [{ channel: 'sms', providers: ['twilio', 'telnyx'], routes: [{ prefix: '44', providers: ['telnyx'] }] }] }, 400, 'VALIDATION_FAILED', /not an E\.164 prefix/],
      [{ channels: [{ channel: 'sms', providers: ['twilio', 'telnyx'], routes: [{ prefix: '+4a', providers: ['telnyx'] }] }] }, 400, 'VALIDATION_FAILED', /not an E\.164 prefix/],
      [{ channels: [{ channel: 'sms', providers: ['twilio', 'telnyx'], routes: [{ prefix: '+1', providers: ['twilio'] }, { prefix: '+1', providers: ['telnyx'] }] }] }, 400, 'VALIDATION_FAILED', /\+1 is given twice/],
      // A route may name only providers of the channel's (new) order; dropping one a kept route uses is refused too.
      [{ channels: [{ channel: 'sms', providers: ['twilio'], routes: [{ prefix: '+44', providers: ['telnyx'] }] }] }, 400, 'VALIDATION_FAILED', /telnyx is not among the sms providers/],
      [{ channels: [{ channel: 'sms', providers: ['twilio'] }] }, 400, 'VALIDATION_FAILED', /SMS_ROUTES sends \+44 to telnyx, which this order leaves out/],
      [{ channels: [{ channel: 'email', providers: ['twilio'] }] }, 400, 'VALIDATION_FAILED', /not a loaded email provider/],
      [{ channels: [{ channel: 'voice', providers: ['twilio'] }] }, 400, 'VALIDATION_FAILED', /./],
      [{ channels: [{ channel: 'sms', providers: ['twilio'], extra: 1 }] }, 400, 'BAD_REQUEST', /extra/],
      [{ channels: [] }, 400, 'VALIDATION_FAILED', /./],
    ];
    for (const [json, status, code, message] of cases) {
      const res = await put(json);
      const body = (await res.json()) as { error: string; code: string; details?: { field: string }[] };
      assert.equal(res.status, status, `${JSON.stringify(json)} → ${JSON.stringify(body)}`);
      assert.equal(body.code, code, JSON.stringify(body));
      assert.match(body.error, message);
    }
    const named = (await (await put({ channels: [{ channel: 'sms', providers: ['twilio', 'nobody'] }] })).json()) as { details: { field: string }[] };
    assert.equal(named.details[0]!.field, 'channels[0].providers[1]');
    assert.equal(readFileSync(t.envFile, 'utf8'), before, 'a refused routing writes nothing');
  });

  it('refuses anyone but the operator', async () => {
    assert.equal((await t.call('PUT', '/admin/api/providers/routing', { json: { channels: [{ channel: 'sms', providers: ['telnyx', 'twilio'] }] } })).status, 401);
  });

  it('saves to the env file, shows it as saved until a deploy, and serves it after', async () => {
    const res = await put({ channels: [{ channel: 'sms', providers: ['telnyx', 'twilio'], routes: [{ prefix: '+1', providers: ['twilio', 'telnyx'] }, { prefix: '+4420', providers: ['twilio'] }] }] });
    const body = (await res.json()) as { ok: boolean; saved: string[]; envFile: string; appliesOn: string };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.deepEqual(body, { ok: true, saved: ['SMS_DRIVER', 'SMS_ROUTES'], envFile: t.envFile, appliesOn: 'deploy' });
    const file = fileSettings();
    assert.equal(file.SMS_DRIVER, 'telnyx,twilio');
    assert.equal(file.SMS_ROUTES, '+1=twilio,telnyx;+4420=twilio');
    assert.equal(file.TWILIO_AUTH_TOKEN, sim.credentials.twilio.authToken, 'the other settings are kept');

    // Saved, not serving: the board still routes as before and names what waits for a deploy.
    const pending = await sms();
    assert.deepEqual(pending.providers.map((p) => p.provider), ['twilio', 'telnyx']);
    assert.deepEqual(pending.saved, { providers: ['telnyx', 'twilio'], routes: [{ prefix: '+1', providers: ['twilio', 'telnyx'] }, { prefix: '+4420', providers: ['twilio'] }] });

    const deploy = await t.call('POST', '/admin/api/deploy', { token: t.orchestratorToken });
    assert.equal(deploy.status, 202, await deploy.clone().text());
    const c = await eventually(
      async () => {
        const status = (await (await t.call('GET', '/admin/api/status', { token: t.orchestratorToken })).json().catch(() => ({}))) as { lastDeploy?: { outcome: string; error: unknown } };
        if (status.lastDeploy?.outcome === 'failed') assert.fail(`the deploy failed: ${JSON.stringify(status.lastDeploy.error)}`);
        return status.lastDeploy?.outcome === 'deployed' ? sms() : undefined;
      },
      { timeoutMs: 60_000, message: 'the deploy with the saved routing' },
    );
    assert.deepEqual(c.providers.map((p) => p.provider), ['telnyx', 'twilio']);
    assert.deepEqual(c.routes, [{ prefix: '+1', providers: ['twilio', 'telnyx'] }, { prefix: '+4420', providers: ['twilio'] }]);
    assert.equal(c.saved, undefined, 'nothing waits once it serves');
  });

  it('an empty route list removes SMS_ROUTES; leaving routes out keeps them', async () => {
    assert.equal((await put({ channels: [{ channel: 'sms', providers: ['twilio', 'telnyx'] }] })).status, 200);
    assert.equal(fileSettings().SMS_ROUTES, '+1=twilio,telnyx;+4420=twilio');
    assert.equal((await put({ channels: [{ channel: 'sms', providers: ['twilio', 'telnyx'], routes: [] }] })).status, 200);
    const file = fileSettings();
    assert.equal(file.SMS_DRIVER, 'twilio,telnyx');
    assert.equal('SMS_ROUTES' in file, false);
    assert.deepEqual((await sms()).saved, { providers: ['twilio', 'telnyx'], routes: [] });
  });

  it('an order that leaves a loaded provider out: sends never go there, and the board offers it', async () => {
    assert.equal((await put({ channels: [{ channel: 'sms', providers: ['twilio'], routes: [] }] })).status, 200);
    assert.equal(fileSettings().SMS_DRIVER, 'twilio');
    assert.equal((await t.call('POST', '/admin/api/deploy', { token: t.orchestratorToken })).status, 202);
    const c = await eventually(
      async () => {
        const status = (await (await t.call('GET', '/admin/api/status', { token: t.orchestratorToken })).json().catch(() => ({}))) as { lastDeploy?: { startedAt: string; outcome: string } };
        return status.lastDeploy?.outcome === 'deployed' ? sms().then((s) => (s.providers.length === 1 ? s : undefined)) : undefined;
      },
      { timeoutMs: 60_000, message: 'the deploy with Twilio alone' },
    );
    assert.deepEqual(c.providers.map((p) => p.provider), ['twilio']);
    assert.deepEqual(c.available, ['telnyx']);
    assert.deepEqual(c.routes, []);
  });

  it('refuses a setting the environment gives, which the env file cannot change, and shows nothing as saved', async () => {
    const pinned = await startTestDeployment(twoSmsProvidersEnv(sim), { SMS_ROUTES: '+44=telnyx,twilio' });
    try {
      const before = readFileSync(pinned.envFile, 'utf8');
      const res = await pinned.call('PUT', '/admin/api/providers/routing', {
        token: pinned.orchestratorToken,
        json: { channels: [{ channel: 'sms', providers: ['twilio', 'telnyx'], routes: [{ prefix: '+1', providers: ['telnyx'] }] }] },
      });
      const body = (await res.json()) as { code: string; error: string };
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(body.code, 'VALIDATION_FAILED');
      assert.match(body.error, /SMS_ROUTES is given by the process environment or the command line, which wins over the env file/);
      assert.equal(readFileSync(pinned.envFile, 'utf8'), before);
      // An order alone is the file's to change.
      const order = await pinned.call('PUT', '/admin/api/providers/routing', { token: pinned.orchestratorToken, json: { channels: [{ channel: 'sms', providers: ['telnyx', 'twilio'] }] } });
      assert.equal(order.status, 200, await order.clone().text());
      const board = (await (await pinned.call('GET', '/admin/api/providers', { token: pinned.orchestratorToken })).json()) as { channels: Channel[] };
      assert.deepEqual(board.channels.find((c) => c.channel === 'sms')!.saved, { providers: ['telnyx', 'twilio'], routes: [{ prefix: '+44', providers: ['telnyx', 'twilio'] }] });
    } finally {
      await pinned.close();
    }
  });
});
