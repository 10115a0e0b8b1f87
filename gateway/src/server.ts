import { startClusterGateway, startEmbedded, type Clock, type DriverSpec, type Logger, type ServedRuntime, type Settings } from '@switchboard/runtime';
import { GatewayApp } from './http/app.js';
import { clientAddress } from './http/client-address.js';
import type { AdapterName, Listener } from './http/adapter.js';
import { selectAdapter } from './http/select-adapter.js';
import type { ListenFunction } from './admin/switching-listener.js';
import { GatewayMetrics } from './metrics.js';
import { adminRoutes } from './routes/admin.js';
import type { AdminControl, RouteDeps } from './routes/deps.js';
import { adminSetupRoutes } from './routes/admin-setup.js';
import { adminActivityRoutes } from './routes/admin-activity.js';
import { adminOpsRoutes } from './routes/admin-ops.js';
import { adminContactRoutes } from './routes/admin-contacts.js';
import { adminSessionRoutes } from './routes/admin-session.js';
import { adminProviderRoutes } from './routes/admin-providers.js';
import { adminChannelRoutes } from './routes/admin-channels.js';
import { ProviderBoard } from './admin/provider-board.js';
import { adminUiRoutes } from './routes/admin-ui.js';
import { AdminSessions } from './admin/sessions.js';
import { docsRoutes } from './routes/docs.js';
import { healthRoutes } from './routes/health.js';
import { billingRoutes } from './routes/billing.js';
import { messagingRoutes } from './routes/messaging.js';
import { whatsappRoutes } from './routes/whatsapp.js';
import { inboxRoutes } from './routes/inbox.js';
import { conversationRoutes } from './routes/conversations.js';
import { consentRoutes } from './routes/consents.js';
import { replyRoutes } from './routes/reply.js';
import { ReplyWaits } from './replies/reply-waits.js';
import { ReplyWaitCap } from './replies/wait-cap.js';
import { oauthMetadataRoutes } from './routes/oauth-metadata.js';
import { ResourceServer } from './oauth/resource-server.js';
import { webhookRoutes } from './routes/webhooks.js';
import { unsubscribeRoutes } from './routes/unsubscribe.js';
import { importPackage, resolveProviders, type DemoSimulator } from './providers.js';
import { attachMcp, ServerNames, type McpSessions } from './mcp/index.js';
import { connectAgentReach } from './mcp/live-delivery.js';
import { mcpRouteDocs } from './mcp/route-docs.js';
import { InboxSubscribers } from './mcp/inbox-subscribers.js';
import { createToolServer, toolScopes } from './mcp/tools.js';
import { createModernToolServer } from './mcp/modern-server.js';
import { callRoutes } from './routes/calls.js';
import { voiceRoutes } from './routes/voice.js';
import { voiceSocketRoute } from './routes/voice-socket.js';
import { attachVoiceSocket } from './voice/voice-socket.js';
import { provisioningRoutes } from './routes/provisioning.js';
import { VERSION } from './version.js';

/** A running embedded Switchboard: gateway and runtime in one process. */
export interface Gateway {
  readonly url: string;
  readonly port: number;
  readonly publicBaseUrl: string;
  /** The runtime it serves: embedded, or a cluster gateway's side (see `runtime.role`). */
  readonly runtime: ServedRuntime;
  readonly app: GatewayApp;
  readonly metrics: GatewayMetrics;
  /** The HTTP server under the gateway (see HTTP_ADAPTER). */
  readonly adapter: AdapterName;
  /** Live MCP sessions. */
  readonly mcp: McpSessions;
  /** The in-process provider simulator, in demo mode. */
  readonly simulator: DemoSimulator | undefined;
  /** Stops accepting, drains in-flight requests and actors, closes the store. */
  stop(): Promise<void>;
}

export interface StartGatewayOptions {
  settings: Settings;
  logger: Logger;
  /** Save and deploy for the admin API (a {@link Deployment} passes its own). */
  admin?: AdminControl;
  /** Binds the port; a {@link Deployment} passes one that keeps the socket across deploys. */
  listen?: ListenFunction;
  /** `gateway`: a cluster gateway, reaching the agents' runtime nodes over NATS (see docs/cluster.md). */
  cluster?: 'gateway';
  /** The built-in drivers to load instead of those the settings name (an embedding application's choice). */
  drivers?: DriverSpec[];
  /** The simulator of the gateway this one replaces: demo mode starts the new one on its port, with its credentials. */
  previousSimulator?: DemoSimulator;
  /** The time agent operations read (tests move their own); the system's clock by default. */
  clock?: Clock;
}

/** Binds straight on the adapter: the port lives as long as this gateway. */
const listenOnAdapter: ListenFunction = (adapter, app, options) => adapter.listen(app, options);

/** Starts the runtime and the gateway (uWebSockets.js, or node:http where uWS cannot serve) in front of it. */
export async function startGateway({ settings, logger, admin, listen: bind = listenOnAdapter, cluster, drivers, previousSimulator, clock }: StartGatewayOptions): Promise<Gateway> {
  // Chosen before anything opens, so a forced adapter that cannot serve stops the start cleanly.
  const { adapter, reason } = await selectAdapter(settings.HTTP_ADAPTER);
  const resolveClient = clientAddress(settings.TRUSTED_PROXIES);
  // Checked before anything opens: a bad OAuth setting stops the start cleanly.
  const oauth = ResourceServer.fromSettings(settings);
  logger.info({ adapter: adapter.name, reason }, `start-up: HTTP adapter ${adapter.name}: ${reason}`);
  const runtime: ServedRuntime = cluster === 'gateway' ? await startClusterGateway({ settings, logger }) : await startEmbedded({ settings, logger, ...(clock ? { clock } : {}) });
  // The gateway reaches the runtime only through its ports.
  const ports = runtime.ports;
  oauth?.useAgents((agentId) => ports.tokens.agentCreatedAt(agentId));
  const metrics = new GatewayMetrics();
  metrics.observe(ports.metrics);
  const providerBoard = new ProviderBoard();
  providerBoard.observe(ports.metrics.events);
  metrics.observeReadiness(ports.readiness);
  const sessions = new AdminSessions(ports, () => publicBaseUrl ?? '');
  const app = new GatewayApp({
    sessions,
    oauth,
    ports,
    metrics,
    logger,
    bodyLimits: { api: settings.BODY_LIMIT_BYTES, webhook: settings.WEBHOOK_BODY_LIMIT_BYTES },
  });
  let listener: Listener | undefined;
  let mcp!: McpSessions;
  const inboxes = new InboxSubscribers((listener) => ports.reach.followInboxes(listener));
  const replyWaits = new ReplyWaits(ports);
  const replyWaitCap = new ReplyWaitCap(ports, settings.REPLY_WAITS_PER_PRINCIPAL);
  const serverNames = new ServerNames([settings.HOST, ...settings.ALLOWED_HOSTS.split(',')]);
  const attachTransports = (routes: Parameters<typeof attachMcp>[0]) => {
    mcp = attachMcp(routes, {
      authenticate: (token) => ports.tokens.authenticate(token),
      lockout: ports.lockout,
      oauth,
      toolScope: toolScopes(app),
      createServer: (principal, agentId) => createToolServer(app, principal, agentId, inboxes),
      createModernServer: (principal, agentId) => createModernToolServer(app, principal, agentId, ports, replyWaitCap),
      followInboxes: (listener) => ports.reach.followInboxes(listener),
      logger,
      bodyLimit: settings.BODY_LIMIT_BYTES,
      maxSessionsPerPrincipal: settings.MCP_MAX_SESSIONS_PER_PRINCIPAL,
      sessionIdleMs: settings.MCP_SESSION_IDLE_SECONDS * 1000,
      observe: (route, method, status, seconds) => metrics.observeRequest(route, method, status, seconds),
      serverNames,
    });
  };
  let simulator: DemoSimulator | undefined;
  let publicBaseUrl: string | undefined;
  let url: string;
  try {
    const before = (routes: Parameters<typeof attachMcp>[0]) => {
      attachTransports(routes);
      attachVoiceSocket(routes, { voice: ports.voice, metrics, logger, publicBaseUrl: () => runtime.publicBaseUrl });
    };
    // The port opens first, since the public base URL may depend on it; until `ready()` every route answers 503 `starting`.
    const limits = {
      headersTimeoutMs: settings.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: settings.HTTP_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: settings.HTTP_IDLE_TIMEOUT_MS,
      maxConnectionsPerAddress: settings.HTTP_MAX_CONNECTIONS_PER_ADDRESS,
    };
    listener = await bind(adapter, app, { host: settings.HOST, port: settings.PORT, logger, before, starting: true, clientAddress: resolveClient, limits });
    logger.info({ port: listener.port }, 'start-up: listening (503 starting until the routes are mounted)');
    connectAgentReach(ports.reach, mcp);
    metrics.observeMcp(() => mcp.census());
    const host = settings.HOST.includes(':') ? `[${settings.HOST}]` : settings.HOST === '0.0.0.0' ? '127.0.0.1' : settings.HOST;
    url = `http://${host}:${listener.port}`;
    publicBaseUrl = (settings.PUBLIC_BASE_URL || url).replace(/\/+$/, '');
    serverNames.add(publicBaseUrl);
    oauth?.useBaseUrl(publicBaseUrl);
    if (oauth) logger.info({ authorizationServers: oauth.authorizationServers, resource: oauth.resource() }, 'start-up: OAuth access tokens accepted beside the static tokens');
    const providers = drivers ? { specs: drivers, simulator: undefined } : await resolveProviders(settings, runtime.demoMode, logger, previousSimulator);
    simulator = providers.simulator;
    if (simulator) {
      simulator.gatewayUrl = publicBaseUrl;
      logger.info({ url: simulator.url }, `start-up: demo mode: the provider simulator listens at ${simulator.url}`);
    }
    await runtime.attach({ publicBaseUrl, drivers: providers.specs, importer: importPackage });
  } catch (err) {
    await listener?.close(0);
    await simulator?.close();
    await runtime.stop();
    throw err;
  }
  const active = listener;
  const simulatorUrls = (simulator as { baseUrls?: RouteDeps['providerBaseUrls'] } | undefined)?.baseUrls;
  const providerBaseUrls = simulatorUrls ?? { twilio: settings.TWILIO_BASE_URL, resend: settings.RESEND_BASE_URL, elevenlabs: settings.ELEVENLABS_BASE_URL };
  const deps: RouteDeps = { ports, metrics, version: VERSION, startedAt: Date.now(), publicBaseUrl, admin, providerBaseUrls, simulator };
  app.add(
    ...healthRoutes(deps),
    ...oauthMetadataRoutes(oauth),
    ...docsRoutes(deps, () => [...app.routes, ...mcpRouteDocs]),
    ...provisioningRoutes(deps),
    ...messagingRoutes(deps),
    ...whatsappRoutes(deps),
    ...inboxRoutes(deps),
    ...conversationRoutes(deps),
    ...consentRoutes(deps),
    ...replyRoutes(deps, replyWaits, replyWaitCap),
    ...webhookRoutes(deps),
    ...unsubscribeRoutes(deps),
    ...billingRoutes(deps),
    ...voiceRoutes(deps),
    ...callRoutes(deps),
    voiceSocketRoute,
    ...adminRoutes(deps),
    ...adminSetupRoutes(deps),
    ...adminOpsRoutes(deps),
    ...adminContactRoutes(deps),
    ...adminActivityRoutes(deps),
    ...adminProviderRoutes(deps, providerBoard),
    ...adminChannelRoutes(),
    ...adminSessionRoutes(sessions),
    ...adminUiRoutes(),
  );
  active.ready();
  logger.info('start-up: ready');

  let stopping: Promise<void> | undefined;
  return {
    url,
    port: active.port,
    publicBaseUrl,
    runtime,
    app,
    metrics,
    adapter: adapter.name,
    simulator,
    mcp,
    stop() {
      stopping ??= (async () => {
        const open = { sessions: mcp.count, calls: ports.voice.liveCalls, requests: active.inFlight };
        logger.info(open, 'shutdown: closing MCP sessions, draining requests and calls');
        // Waits for replies answer now (no reply yet, and a cursor), then sessions: closing the listener ends by cutting every socket.
        replyWaits.close();
        await mcp.closeAll();
        await active.close(settings.SHUTDOWN_GRACE_SECONDS * 1000);
        await runtime.stop();
        await simulator?.close();
        logger.info(open, `shutdown: closed ${open.sessions} MCP session(s) and ${open.calls} call(s); the store is closed`);
      })();
      return stopping;
    },
  };
}
