import { ErrorCodes, MESSAGE_CHANNELS, type Channel } from '@switchboard/sdk';
import { channelRoutes, parseRoutes } from '@switchboard/runtime';
import type { ProviderBoard } from '../admin/provider-board.js';
import { probeHealth } from '../admin/provider-tests.js';
import { offeredBy, routingSettings, savedRouting } from '../admin/provider-routing.js';
import { readEnvFile, saveSettings } from '../admin/settings-file.js';
import { fail } from '../http/errors.js';
import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { CheckResult, ProviderBoardResponse, ProviderRoutingBody, ProviderRoutingResponse } from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';

/** Admin API for the Providers page: each message channel's providers in routing order with their health, and a test of each. */
export function adminProviderRoutes(deps: RouteDeps, board: ProviderBoard): RouteDefinition[] {
  const { ports } = deps;
  const common = { tag: 'Admin', auth: 'orchestrator' as const };
  const logger = ports.logger.child({ component: 'admin' });
  const routesOf = (channel: Channel) => parseRoutes(channelRoutes(ports.settings)[channel] ?? '');
  return [
    {
      ...common,
      method: 'GET',
      path: '/admin/api/providers',
      operationId: 'adminProviders',
      summary: "Each message channel's providers in routing order: circuit state, last success and failure, recent error rate and attempts; and the prefix routes.",
      description:
        'Counted by this gateway from the send attempts of every process since it started (embedded, or forwarded by the cluster nodes). ' +
        'The order and routes are settings (SMS_DRIVER, SMS_ROUTES): PUT /admin/api/providers/routing saves them, and they serve after the next deploy; ' +
        'until then a channel whose saved routing differs from the serving one shows it as `saved`.',
      responses: { 200: { description: 'The providers.', schema: ProviderBoardResponse }, ...errorResponses(401, 403, 429) },
      async handler() {
        const file = deps.admin ? readEnvFile(deps.admin.envFile) : undefined;
        const drivers = ports.admin.drivers();
        const channels = MESSAGE_CHANNELS.map((channel) => {
          const saved = file && savedRouting(channel, file, ports.settings, drivers, (key) => deps.admin!.givenElsewhere(key));
          const order = ports.admin.providers(channel);
          return {
            channel,
            providers: order.map((provider) => board.health(channel, provider)),
            routes: routesOf(channel),
            available: offeredBy(drivers, channel).filter((p) => !order.includes(p)),
            ...(saved ? { saved } : {}),
          };
        }).filter((c) => c.providers.length > 0);
        return json(200, { since: board.since.toISOString(), channels }, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'PUT',
      path: '/admin/api/providers/routing',
      operationId: 'adminSaveProviderRouting',
      summary: "Saves message channels' provider order and SMS prefix routes to the env file (SMS_DRIVER, SMS_ROUTES...), as the settings save does.",
      description:
        'Each provider must be a loaded driver offering the channel, named once; prefixes are E.164 (`+44`), each once, naming only providers of the new order. ' +
        'The first provider is the channel\u2019s own: the agents\u2019 pool numbers are held there. Like every saved setting it serves after the next deploy (POST /admin/api/deploy); ' +
        'in a cluster only this gateway\u2019s env file is written, and runtime nodes keep their own settings until they are restarted with the same values. ' +
        'A setting the process environment gives wins over the env file, so saving it is refused (400).',
      body: ProviderRoutingBody,
      responses: { 200: { description: 'Saved; serves after the next deploy.', schema: ProviderRoutingResponse }, ...errorResponses(400, 401, 403, 409, 415, 429) },
      async handler({ body }: RouteContext<ProviderRoutingBody>) {
        const admin = deps.admin;
        if (!admin) fail(ErrorCodes.CONFLICT, 'This server was not started from an env file, so the routing cannot be saved here; set SMS_DRIVER and SMS_ROUTES in its settings and restart it.');
        if (admin.deploying) fail(ErrorCodes.CONFLICT, 'A deploy is under way; save once it has finished (GET /admin/api/status shows lastDeploy).');
        const updates = routingSettings(body.channels, ports.admin.drivers(), { ...ports.settings, ...readEnvFile(admin.envFile) });
        const pinned = Object.keys(updates).filter((key) => admin.givenElsewhere(key));
        if (pinned.length > 0) {
          fail(
            ErrorCodes.VALIDATION_FAILED,
            `${pinned.join(' and ')} ${pinned.length > 1 ? 'are' : 'is'} given by the process environment or the command line, which wins over the env file: change ${pinned.length > 1 ? 'them' : 'it'} there and restart.`,
            pinned.map((key) => ({ field: 'channels', message: `${key} is given by the environment` })),
          );
        }
        const saved = saveSettings(admin.envFile, updates);
        logger.info({ keys: saved, routing: updates }, 'provider routing saved');
        return json(200, { ok: true, saved, envFile: admin.envFile, appliesOn: 'deploy' }, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/providers/:provider/test',
      operationId: 'adminTestProvider',
      summary: "Tests a loaded provider's credentials with its driver's read-only health probe (the same probe as the setup wizard's credential tests).",
      description: 'A refusal or no answer is `200 {ok:false, message}`; 404 when no loaded driver is that provider.',
      responses: { 200: { description: '`ok` says whether the provider accepted the credentials; `message` what to fix if not.', schema: CheckResult }, ...errorResponses(401, 403, 404, 429) },
      async handler({ params }: RouteContext) {
        const provider = params.provider!;
        const driver = ports.admin.drivers().find((d) => d.manifest.provider === provider);
        if (!driver) fail(ErrorCodes.NOT_FOUND, `No loaded driver is the provider ${provider}.`);
        return json(200, await probeHealth(driver, { logger }), { 'cache-control': 'no-store' });
      },
    },
  ];
}
