import { ErrorCodes, type Channel } from '@switchboard/sdk';
import { parseRoutes } from '@switchboard/runtime';
import type { ProviderBoard } from '../admin/provider-board.js';
import { probeHealth } from '../admin/provider-tests.js';
import { fail } from '../http/errors.js';
import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { CheckResult, ProviderBoardResponse } from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';

/** The message channels whose sends route between providers. */
const MESSAGE_CHANNELS = ['sms', 'whatsapp', 'email', 'line'] as const satisfies readonly Channel[];

/** Admin API for the Providers page: each message channel's providers in routing order with their health, and a test of each. */
export function adminProviderRoutes(deps: RouteDeps, board: ProviderBoard): RouteDefinition[] {
  const { ports } = deps;
  const common = { tag: 'Admin', auth: 'orchestrator' as const };
  const logger = ports.logger.child({ component: 'admin' });
  const routesOf = (channel: Channel) => (channel === 'sms' ? parseRoutes(ports.settings.SMS_ROUTES) : []);
  return [
    {
      ...common,
      method: 'GET',
      path: '/admin/api/providers',
      operationId: 'adminProviders',
      summary: "Each message channel's providers in routing order: circuit state, last success and failure, recent error rate and attempts; and the prefix routes.",
      description:
        'Counted by this gateway from the send attempts of every process since it started (embedded, or forwarded by the cluster nodes). ' +
        'The order and routes are settings (SMS_DRIVER, SMS_ROUTES); change them in Settings and deploy.',
      responses: { 200: { description: 'The providers.', schema: ProviderBoardResponse }, ...errorResponses(401, 403, 429) },
      async handler() {
        const channels = MESSAGE_CHANNELS.map((channel) => ({
          channel,
          providers: ports.admin.providers(channel).map((provider) => board.health(channel, provider)),
          routes: routesOf(channel),
        })).filter((c) => c.providers.length > 0);
        return json(200, { since: board.since.toISOString(), channels }, { 'cache-control': 'no-store' });
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
