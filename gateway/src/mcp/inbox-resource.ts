import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type Server, type ServerEvent, type ServerEventBus } from '@modelcontextprotocol/server';
import { ErrorCodes, hasErrorCode } from '@switchboard/sdk';
import { mayActFor, type Principal } from '@switchboard/runtime';
import type { GatewayApp } from '../http/app.js';
import { errorResult } from '../http/errors.js';
import { grants, scopeFor } from '../oauth/scopes.js';

/** The URI template of an agent's inbox resource. */
export const INBOX_URI_TEMPLATE = 'switchboard://agents/{agentId}/inbox';

const INBOX_URI = /^switchboard:\/\/agents\/([A-Za-z0-9][A-Za-z0-9_.-]{0,63})\/inbox$/;

const MIME_TYPE = 'application/json';

/** The URI of the agent's inbox resource. */
export function inboxUri(agentId: string): string {
  return `switchboard://agents/${agentId}/inbox`;
}

/** The agent an inbox URI names, or undefined when the URI is not an inbox's. */
export function agentOfInboxUri(uri: string): string | undefined {
  return INBOX_URI.exec(uri)?.[1];
}

/**
 * Whether the principal may read the agent's inbox: the REST rule of `GET /api/v1/inbox` (it may act
 * for the agent; an OAuth access token also needs `switchboard:read`).
 */
export function mayReadInbox(principal: Principal, agentId: string): boolean {
  if (!mayActFor(principal, agentId)) return false;
  return principal.kind !== 'client' || principal.scopes === undefined || grants(principal.scopes, scopeFor('read'));
}

/** An inbox resource as `resources/list` shows it. */
export interface InboxResource {
  readonly uri: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly mimeType: string;
}

/** Why `read` found no resource: the caller sees it as "resource not found" in its era's terms. */
export class NoSuchResource extends Error {
  constructor(
    readonly uri: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The inbox resources of one caller, the same for both eras: a client token lists its agent's inbox,
 * a team or orchestrator token the agent it named (`?agentId=`), else none (the template says how to
 * name one). A read runs `GET /api/v1/inbox` through `GatewayApp.invoke`, as `comms_inbox_read` does.
 */
export class InboxResources {
  constructor(
    private readonly app: GatewayApp,
    private readonly principal: Principal,
    private readonly agentId: string | undefined,
  ) {}

  list(): InboxResource[] {
    const agentId = this.agentId ?? (this.principal.kind === 'client' ? this.principal.agentId : undefined);
    if (agentId === undefined || !mayReadInbox(this.principal, agentId)) return [];
    return [
      {
        uri: inboxUri(agentId),
        name: `inbox-${agentId}`,
        title: `Inbox of ${agentId}`,
        description: "The agent's unacknowledged inbox entries (inbound messages, outbound status changes), as GET /api/v1/inbox answers.",
        mimeType: MIME_TYPE,
      },
    ];
  }

  templates(): { uriTemplate: string; name: string; title: string; description: string; mimeType: string }[] {
    return [
      {
        uriTemplate: INBOX_URI_TEMPLATE,
        name: 'agent-inbox',
        title: "An agent's inbox",
        description: 'The unacknowledged inbox entries of an agent this token may act for; subscribe to hear of new ones.',
        mimeType: MIME_TYPE,
      },
    ];
  }

  /** The unacknowledged entries, as JSON text; NoSuchResource for a URI that names no inbox this caller may read. */
  async read(uri: string): Promise<{ contents: { uri: string; mimeType: string; text: string }[] }> {
    const agentId = agentOfInboxUri(uri);
    if (agentId === undefined) throw new NoSuchResource(uri, `No resource ${uri}; this server has agents' inboxes (${INBOX_URI_TEMPLATE}).`);
    if (!mayReadInbox(this.principal, agentId)) throw new NoSuchResource(uri, `No inbox ${uri} this token may read.`);
    try {
      const result = await this.app.invoke('GET', '/api/v1/inbox', this.principal, { agentId });
      return { contents: [{ uri, mimeType: MIME_TYPE, text: JSON.stringify(result.body) }] };
    } catch (err) {
      if (hasErrorCode(err, ErrorCodes.NOT_FOUND)) throw new NoSuchResource(uri, `No agent ${agentId}, so no inbox ${uri}.`);
      throw err;
    }
  }
}

/**
 * Serves the caller's inbox resources on a 2026-07-28 server. `resources/read` of an inbox answers
 * with `ttlMs: 0` (the SDK's default for an operation without a hint): an inbox changes with each message.
 */
export function serveModernInbox(server: Server, resources: InboxResources): void {
  server.setRequestHandler('resources/list', async () => ({ resources: resources.list() }));
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: resources.templates() }));
  server.setRequestHandler('resources/read', async (request) => {
    try {
      return await resources.read(request.params.uri);
    } catch (err) {
      if (err instanceof NoSuchResource) throw new ResourceNotFoundError(err.uri, err.message);
      const { body } = errorResult(err) as { body: { error?: string } };
      throw new ProtocolError(ProtocolErrorCode.InternalError, body.error ?? 'The inbox could not be read.');
    }
  });
}

/** Why a listen's resource subscriptions are refused, or undefined when the caller may read every one. */
export function refusedSubscriptions(principal: Principal, uris: readonly unknown[]): string | undefined {
  for (const uri of uris) {
    const agentId = typeof uri === 'string' ? agentOfInboxUri(uri) : undefined;
    if (agentId === undefined) return `Invalid params: ${JSON.stringify(uri)} is not a resource this server has (${INBOX_URI_TEMPLATE}).`;
    if (!mayReadInbox(principal, agentId)) return `Invalid params: this token may not read ${uri}.`;
  }
  return undefined;
}

/**
 * The change-event bus of the 2026-07-28 listen streams: an inbox announcement (from this process or,
 * in a cluster, any runtime node) becomes `resource_updated` for the agent's inbox URI. It follows the
 * announcements only while a stream listens, so a gateway nobody listens to hears none.
 */
export class InboxEventBus implements ServerEventBus {
  readonly #listeners = new Set<(event: ServerEvent) => void>();
  #unfollow: (() => void) | undefined;

  constructor(private readonly follow: (listener: (agentId: string) => void) => () => void) {}

  publish(event: ServerEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // One stream's failure is its own.
      }
    }
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    const entry = (event: ServerEvent) => listener(event);
    this.#listeners.add(entry);
    this.#unfollow ??= this.follow((agentId) => this.publish({ kind: 'resource_updated', uri: inboxUri(agentId) }));
    return () => {
      if (!this.#listeners.delete(entry) || this.#listeners.size > 0) return;
      this.#unfollow?.();
      this.#unfollow = undefined;
    };
  }
}
