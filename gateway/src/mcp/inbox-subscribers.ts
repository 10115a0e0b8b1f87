import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  ErrorCode,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '@switchboard/runtime';
import type { GatewayApp } from '../http/app.js';
import { errorResult } from '../http/errors.js';
import { InboxResources, inboxUri, NoSuchResource, refusedSubscriptions } from './inbox-resource.js';
import { callerOf } from './mcp-http.js';

/** The 2025 revisions' code for an unknown resource (2026-07-28 uses -32602). */
const RESOURCE_NOT_FOUND = -32002;

/**
 * The 2025-era sessions subscribed to agents' inboxes (`resources/subscribe`): an inbox announcement
 * becomes `notifications/resources/updated` on each subscribed session's stream. It follows the
 * announcements only while a session is subscribed. A session that cannot take the notification (no
 * stream now) misses it; the hint is not the data, the next read is.
 */
export class InboxSubscribers {
  readonly #byUri = new Map<string, Set<Server>>();
  readonly #bySession = new Map<Server, Set<string>>();
  #unfollow: (() => void) | undefined;

  constructor(private readonly follow: (listener: (agentId: string) => void) => () => void) {}

  /** Serves the caller's inbox resources and their subscriptions on a 2025-era session's server. */
  serve(server: Server, app: GatewayApp, principal: Principal, agentId: string | undefined): void {
    // The rights are the caller's of each request, as for tools (an access token's scopes may change).
    const resources = (authInfo: Parameters<typeof callerOf>[0]) => new InboxResources(app, callerOf(authInfo) ?? principal, agentId);
    server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => ({ resources: resources(extra.authInfo).list() }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async (_request, extra) => ({ resourceTemplates: resources(extra.authInfo).templates() }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      try {
        return await resources(extra.authInfo).read(request.params.uri);
      } catch (err) {
        if (err instanceof NoSuchResource) throw new McpError(RESOURCE_NOT_FOUND, err.message, { uri: err.uri });
        const { body } = errorResult(err) as { body: { error?: string } };
        throw new McpError(ErrorCode.InternalError, body.error ?? 'The inbox could not be read.');
      }
    });
    server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
      const refusal = refusedSubscriptions(callerOf(extra.authInfo) ?? principal, [request.params.uri]);
      if (refusal) throw new McpError(ErrorCode.InvalidParams, refusal);
      this.#add(server, request.params.uri);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      this.#remove(server, request.params.uri);
      return {};
    });
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      for (const uri of this.#bySession.get(server) ?? []) this.#remove(server, uri);
    };
  }

  #add(server: Server, uri: string): void {
    let servers = this.#byUri.get(uri);
    if (!servers) this.#byUri.set(uri, (servers = new Set()));
    servers.add(server);
    let uris = this.#bySession.get(server);
    if (!uris) this.#bySession.set(server, (uris = new Set()));
    uris.add(uri);
    this.#unfollow ??= this.follow((agentId) => this.#heard(agentId));
  }

  #remove(server: Server, uri: string): void {
    const servers = this.#byUri.get(uri);
    if (servers?.delete(server) && servers.size === 0) this.#byUri.delete(uri);
    const uris = this.#bySession.get(server);
    if (uris?.delete(uri) && uris.size === 0) this.#bySession.delete(server);
    if (this.#byUri.size > 0) return;
    this.#unfollow?.();
    this.#unfollow = undefined;
  }

  #heard(agentId: string): void {
    const uri = inboxUri(agentId);
    for (const server of this.#byUri.get(uri) ?? []) {
      server.notification({ method: 'notifications/resources/updated', params: { uri } }).catch(() => undefined);
    }
  }
}
