// The channel table (the SDK's CHANNEL_SPECS) covers CHANNELS exactly, and every reader agrees with it:
// the settings it names, the runtime's pools, driver choices and routes, the OAuth scopes, and what the
// gateway serves (its webhook routes and their media types, its schemas, GET /admin/api/channels).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CHANNELS, CHANNEL_SPECS, MESSAGE_CHANNELS, type ChannelSpec } from '@switchboard/sdk';
import { POOLS, SETTING_KEYS, channelRoutes, loadSettings } from '@switchboard/runtime';
import { POOL_OF, choiceSetting } from '@switchboard/runtime/internal';
import { SCOPES_SUPPORTED } from '../../gateway/src/oauth/scopes.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const SPECS = CHANNELS.map((channel) => ({ channel, ...(CHANNEL_SPECS[channel] as ChannelSpec) }));
const SAMPLES = { e164: '+14155550100', email: 'agent@example.com', 'line-user': `U${'0a'.repeat(16)}` } as const;

type Schema = { anyOf?: { const?: string }[]; properties?: Record<string, Schema>; items?: Schema };
type Operation = { requestBody?: { content: Record<string, { schema: Schema }> }; responses: Record<string, { content?: Record<string, { schema: Schema }> }> };
const consts = (schema: Schema | undefined) => (schema?.anyOf ?? []).map((s) => s.const);

describe('the channel table', () => {
  it('has one entry per channel, in CHANNELS order, and no other', () => {
    assert.deepEqual(Object.keys(CHANNEL_SPECS), [...CHANNELS]);
  });

  it('names settings that exist, and the driver registry chooses by its driver settings', () => {
    for (const spec of SPECS) {
      for (const key of [spec.driverSetting, spec.pool.setting, spec.routesSetting].filter((k) => k !== undefined)) {
        assert.ok(SETTING_KEYS.includes(key), `${spec.channel}: ${key} is a setting`);
      }
      assert.equal(choiceSetting(spec.channel), spec.driverSetting);
    }
  });

  it('gives the runtime its pools and routes', () => {
    for (const spec of SPECS) assert.equal(POOL_OF[spec.channel], spec.pool.name);
    assert.deepEqual(new Set(POOLS), new Set(SPECS.map((s) => s.pool.name)));
    assert.equal(POOL_OF.sms, POOL_OF.voice, 'sms and voice share the phone number');
    const settings = loadSettings({ env: {}, overrides: { SMS_ROUTES: '+44=twilio' } });
    assert.deepEqual(channelRoutes(settings), Object.fromEntries(SPECS.filter((s) => s.routesSetting).map((s) => [s.channel, '+44=twilio'])));
  });

  it('sends on every channel but voice, with a send scope for each', () => {
    assert.deepEqual(MESSAGE_CHANNELS, SPECS.filter((s) => s.sends).map((s) => s.channel));
    assert.equal(CHANNEL_SPECS.voice.sends, false);
    assert.deepEqual(SCOPES_SUPPORTED.filter((s) => s.startsWith('switchboard:send:')), MESSAGE_CHANNELS.map((c) => `switchboard:send:${c}`));
  });

  it("takes each channel's own kind of address, and no other", () => {
    for (const spec of SPECS) {
      for (const [kind, sample] of Object.entries(SAMPLES)) assert.equal(spec.address.pattern.test(sample), kind === spec.address.kind, `${spec.channel} and ${sample}`);
    }
  });

  describe('as the gateway serves it', () => {
    let t: TestGateway;
    let paths: Record<string, Record<string, Operation>>;
    before(async () => {
      t = await startTestGateway();
      paths = ((await (await t.call('GET', '/api/v1/openapi.json')).json()) as { paths: typeof paths }).paths;
    });
    after(() => t.close());

    it("routes each channel's webhooks at its path, taking its default media types from drivers that declare none", () => {
      // The demo's drivers (Twilio, Resend, LINE) declare none.
      for (const spec of SPECS) {
        const route = paths[`/webhooks/{agentId}/${spec.webhook.path}`];
        assert.ok(route?.post, `POST /webhooks/{agentId}/${spec.webhook.path}`);
        assert.deepEqual(Object.keys(route.post.requestBody?.content ?? {}), spec.webhook.contentTypes, spec.channel);
        if (spec.sends) assert.ok(route.get, `the ${spec.channel} webhook's handshake`);
      }
    });

    it('names the message channels and pools in its schemas as the table does', () => {
      const send = paths['/api/v1/send-message']!.post!.requestBody!.content['application/json']!.schema;
      assert.deepEqual(consts(send.properties?.channel), MESSAGE_CHANNELS);
      const routing = paths['/admin/api/providers/routing']!.put!.requestBody!.content['application/json']!.schema;
      assert.deepEqual(new Set(consts(routing.properties?.channels?.items?.properties?.channel)), new Set(MESSAGE_CHANNELS));
      const added = paths['/admin/api/pools/{pool}']!.post!.responses['200']!.content!['application/json']!.schema;
      assert.deepEqual(new Set(consts(added.properties?.pool)), new Set(POOLS));
    });

    it('serves the table to the admin UI', async () => {
      const res = await t.call('GET', '/admin/api/channels', { token: t.orchestratorToken });
      assert.equal(res.status, 200);
      const expected = SPECS.map(({ address, ...spec }) => ({ ...spec, address: { ...address, pattern: address.pattern.source } }));
      assert.deepEqual(((await res.json()) as { channels: unknown[] }).channels, JSON.parse(JSON.stringify(expected)));
      assert.equal((await t.call('GET', '/admin/api/channels')).status, 401, 'orchestrator only');
    });
  });
});
