import { CHANNELS, CHANNEL_SPECS, ErrorCodes, SwitchboardError, type HealthResult } from '@switchboard/sdk';
import { readSecretKey, SECRET_SETTINGS, SETTING_KEYS, type Settings } from '@switchboard/runtime';
import { dashboard } from '../admin/dashboard.js';
import { testCredentials, withAdvice } from '../admin/provider-tests.js';
import { saveSettings } from '../admin/settings-file.js';
import { fail } from '../http/errors.js';
import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import {
  AdminDashboard,
  AdminStatus,
  ApiKeyTestBody,
  CheckResult,
  DemoCredentials,
  DeployResponse,
  SaveBody,
  SaveResponse,
  TwilioTestBody,
} from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';

type Kind = 'telephony' | 'email' | 'tts' | 'stt' | 'chat';

/** Live checks are cached briefly, so a polling dashboard does not become load on a provider. */
const CHECK_TTL_MS = 15_000;

/** Admin API for the setup wizard and dashboard: status, dashboard, credential tests, save and deploy. */
export function adminSetupRoutes(deps: RouteDeps): RouteDefinition[] {
  const { ports } = deps;
  const common = { tag: 'Admin', auth: 'orchestrator' as const };
  const logger = ports.logger.child({ component: 'admin' });
  let cached: { at: number; checks: Promise<Record<Kind, { provider: string | null; check: HealthResult | null }>> } | undefined;

  const driverFor = (kind: Kind) => {
    const all = ports.admin.drivers();
    switch (kind) {
      case 'telephony':
        return all.find((d) => d.manifest.channels.includes('voice') || d.manifest.channels.includes('sms'));
      case 'email':
        return all.find((d) => d.manifest.channels.includes('email'));
      case 'chat':
        return all.find((d) => d.manifest.channels.includes('line'));
      case 'tts':
        return all.find((d) => d.tts);
      case 'stt':
        return all.find((d) => d.stt);
    }
  };
  const checks = () => {
    if (cached && Date.now() - cached.at < CHECK_TTL_MS) return cached.checks;
    const kinds: Kind[] = ['telephony', 'email', 'tts', 'stt', 'chat'];
    const run = async () => {
      const entries = await Promise.all(
        kinds.map(async (kind) => {
          const driver = driverFor(kind);
          if (!driver) return [kind, { provider: null, check: null }] as const;
          const check = driver.health
            ? await Promise.race([
                driver.health().catch(() => ({ ok: false, message: 'The health check failed.' })),
                new Promise<HealthResult>((r) => setTimeout(r, 5000, { ok: false, message: 'No answer within 5 s.' }).unref()),
              ])
            : null;
          return [kind, { provider: driver.manifest.provider, check }] as const;
        }),
      );
      return Object.fromEntries(entries) as Record<Kind, { provider: string | null; check: HealthResult | null }>;
    };
    cached = { at: Date.now(), checks: run() };
    return cached.checks;
  };
  const probe = (packageName: string, base: 'twilio' | 'resend' | 'elevenlabs', settings: Record<string, unknown>, console: string) => {
    const baseUrl = deps.providerBaseUrls?.[base];
    return testCredentials(packageName, baseUrl ? { ...settings, baseUrl } : settings, { logger }).then((r) => json(200, withAdvice(r, console)));
  };
  const testResponses = { 200: { description: '`ok` says whether the provider accepted the credentials; `message` what to fix if not.', schema: CheckResult }, ...errorResponses(400, 401, 403, 415, 429) };

  return [
    {
      ...common,
      method: 'GET',
      path: '/admin/api/status',
      operationId: 'adminStatus',
      summary: 'Version, demo mode, public base URL, each provider with its live check, webhook URLs and non-secret settings.',
      responses: { 200: { description: 'Status; never a secret.', schema: AdminStatus }, ...errorResponses(401, 403, 429) },
      async handler() {
        const live = await checks();
        const providers = Object.fromEntries(Object.entries(live).map(([kind, v]) => [kind, { configured: v.provider !== null, ...v }]));
        const settings: Record<string, string | number | boolean> = {};
        for (const key of SETTING_KEYS) {
          const value = (ports.settings as Record<string, unknown>)[key];
          settings[key] = SECRET_SETTINGS.has(key) ? value !== '' && value !== undefined : (value as string | number);
        }
        const base = deps.publicBaseUrl;
        return json(
          200,
          {
            version: deps.version,
            demoMode: ports.demoMode,
            publicBaseUrl: base,
            envFile: deps.admin?.envFile ?? null,
            providers,
            // Each channel's from its table entry, and the call status URL all voice agents share.
            webhooks: {
              ...Object.fromEntries(CHANNELS.map((c) => [c, `${base}/webhooks/{agentId}/${CHANNEL_SPECS[c].webhook.path}`])),
              voiceStatus: `${base}/webhooks/voice/status`,
            },
            settings,
            lastDeploy: deps.admin?.lastDeploy ?? null,
            simulator: deps.simulator ? { url: deps.simulator.url } : null,
          },
          { 'cache-control': 'no-store' },
        );
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/dashboard',
      operationId: 'adminDashboard',
      summary: 'Agents, usage and cost today and this month, dead letters, active calls, alerts, and the series the charts draw.',
      responses: { 200: { description: 'Dashboard.', schema: AdminDashboard }, ...errorResponses(401, 403, 429) },
      async handler() {
        const live = await checks();
        const failing = Object.fromEntries(Object.entries(live).map(([kind, v]) => [kind, v.check]));
        return json(200, await dashboard(ports, failing), { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/test/twilio',
      operationId: 'adminTestTwilio',
      summary: 'Tests Twilio credentials by fetching the account (read-only) through the Twilio SDK.',
      description: 'Bad credentials are `200 {ok:false, message}`, never a server error; the credentials are not stored or logged.',
      body: TwilioTestBody,
      responses: testResponses,
      async handler({ body }: RouteContext<TwilioTestBody>) {
        if (!/^AC[0-9a-fA-F]{32}$/.test(body.accountSid)) {
          return json(200, { ok: false, message: 'The Account SID is AC followed by 32 hexadecimal characters; copy it from the Twilio console\u2019s account dashboard.' });
        }
        if (!body.authToken) return json(200, { ok: false, message: 'Enter the auth token shown beside the Account SID in the Twilio console.' });
        return probe('@switchboard/driver-twilio', 'twilio', { accountSid: body.accountSid, authToken: body.authToken }, 'the Twilio console (Account \u2192 API keys & tokens)');
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/test/elevenlabs',
      operationId: 'adminTestElevenLabs',
      summary: 'Tests an ElevenLabs API key by reading the subscription (read-only) through the ElevenLabs SDK.',
      body: ApiKeyTestBody,
      responses: testResponses,
      async handler({ body }: RouteContext<ApiKeyTestBody>) {
        if (!body.apiKey.trim()) return json(200, { ok: false, message: 'Enter an API key from the ElevenLabs profile page.' });
        return probe('@switchboard/driver-elevenlabs', 'elevenlabs', { apiKey: body.apiKey }, 'the ElevenLabs profile page (API keys)');
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/test/resend',
      operationId: 'adminTestResend',
      summary: 'Tests a Resend API key by listing the domains (read-only) through the Resend SDK.',
      body: ApiKeyTestBody,
      responses: testResponses,
      async handler({ body }: RouteContext<ApiKeyTestBody>) {
        if (!body.apiKey.trim()) return json(200, { ok: false, message: 'Enter an API key (re_\u2026) from the Resend dashboard.' });
        // The driver also wants the webhook secret; the probe never uses it.
        return probe('@switchboard/driver-resend', 'resend', { apiKey: body.apiKey, webhookSecret: 'whsec_cHJvYmU=' }, 'the Resend dashboard (API Keys)');
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/demo-credentials',
      operationId: 'adminDemoCredentials',
      summary: 'Demo mode only: the in-process simulator\u2019s credentials, which the credential tests accept.',
      description: 'Demo values that open only the loopback simulator, not secrets; 409 when the server is not in demo mode.',
      responses: { 200: { description: 'The simulator\u2019s URL and credentials.', schema: DemoCredentials }, ...errorResponses(401, 403, 409, 429) },
      async handler() {
        const sim = deps.simulator;
        if (!sim) fail(ErrorCodes.CONFLICT, 'The server is not in demo mode, so there is no simulator and no demo credentials.');
        const c = sim.credentials;
        return json(
          200,
          { url: sim.url, twilio: { accountSid: c.twilio.accountSid, authToken: c.twilio.authToken }, resend: { apiKey: c.resend.apiKey }, elevenlabs: { apiKey: c.elevenlabs.apiKey } },
          { 'cache-control': 'no-store' },
        );
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/save',
      operationId: 'adminSaveSettings',
      summary: 'Saves settings to the env file: known keys only, each validated, one line each; written atomically with mode 0600.',
      description: 'An empty string removes a setting (its default applies). Secrets are never echoed back. Takes effect on the next deploy.',
      body: SaveBody,
      responses: { 200: { description: 'Saved.', schema: SaveResponse }, ...errorResponses(400, 401, 403, 409, 415, 429) },
      async handler({ body }: RouteContext<SaveBody>) {
        const admin = deps.admin;
        if (!admin) fail(ErrorCodes.CONFLICT, 'This server was not started from an env file, so settings cannot be saved here; start it with switchboard start.');
        if (admin.deploying) fail(ErrorCodes.CONFLICT, 'A deploy is under way; save once it has finished (GET /admin/api/status shows lastDeploy).');
        if (Object.keys(body.settings).length === 0) fail(ErrorCodes.VALIDATION_FAILED, 'settings names no setting to save.');
        const saved = saveSettings(admin.envFile, body.settings, (merged) => {
          if ('SECRET_KEY' in body.settings) refuseKeyChange(ports.settings, merged.SECRET_KEY ?? '');
        });
        logger.info({ keys: saved }, 'settings saved');
        return json(200, { ok: true, saved, envFile: admin.envFile }, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/deploy',
      operationId: 'adminDeploy',
      summary: 'Restarts the server in-process with the saved settings; refused before anything stops when they do not validate.',
      description:
        'Answers 202 and then swaps: requests in flight finish, new ones get 503 with Retry-After for the moment of the swap, MCP clients reconnect. ' +
        'The 202 cannot wait for the outcome (the answering server is the one being replaced): poll GET /admin/api/status until lastDeploy.outcome is not `deploying`. ' +
        'A deploy that fails, refused here (400) or at start-up, puts the env file back as it was when the serving settings were loaded.',
      responses: {
        202: { description: 'Restart scheduled; its outcome appears in GET /admin/api/status as lastDeploy (same startedAt).', schema: DeployResponse },
        ...errorResponses(400, 401, 403, 409, 429),
      },
      async handler() {
        const admin = deps.admin;
        if (!admin) fail(ErrorCodes.CONFLICT, 'This server was not started from an env file; restart it yourself to apply new settings.');
        const deploy = await admin.deploy();
        return json(202, {
          ok: true,
          message:
            'Restarting with the saved settings; the server answers 503 with Retry-After for a moment. The outcome appears in GET /admin/api/status as lastDeploy: a failed deploy serves the previous settings again and puts the env file back.',
          deploy,
        });
      },
    },
  ];
}

/**
 * Refuses a save that would change the store key in force: what it sealed (the team token,
 * callback signing secrets) would no longer open. Re-sealing is not done here; see docs/configuration.md.
 */
function refuseKeyChange(settings: Settings, next: string): void {
  const now = readSecretKey(settings.DATA_DIR, settings.SECRET_KEY);
  const then = readSecretKey(settings.DATA_DIR, next);
  if (now && then && now.equals(then)) return;
  const message =
    'cannot be changed through the admin API: the secrets in the store are sealed with the current key and would no longer open. Leave it as it is; changing the key is an offline step (docs/configuration.md, "Changing SECRET_KEY")';
  throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `Setting SECRET_KEY ${message}.`, { details: [{ field: 'settings.SECRET_KEY', message }] });
}
