import { decodeJwt } from 'jose';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { Principal, Settings } from '@switchboard/runtime';
import { AccessTokens } from './access-tokens.js';
import { BearerRefusal, challengeOf, type BearerError } from './bearer-refusal.js';
import { SCOPES_SUPPORTED } from './scopes.js';

/** Where the protected-resource metadata is served (RFC 9728); the MCP endpoint's has its path appended. */
export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The protected-resource metadata document (RFC 9728). */
export interface ResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported: readonly string[];
  readonly bearer_methods_supported: readonly string[];
  readonly resource_name: string;
  readonly resource_documentation: string;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * This gateway as an OAuth 2.1 resource server: the JWT access tokens it accepts beside the static
 * tokens, its metadata documents, and the challenge of a refusal. The resource URI is this server's
 * origin (OAUTH_RESOURCE, else the public base URL's); the MCP endpoint's is that with `/mcp`.
 */
export class ResourceServer {
  readonly authorizationServers: readonly string[];
  #resource: string;
  #tokens: AccessTokens | undefined;
  #agentCreatedAt: ((agentId: string) => Promise<string | undefined>) | undefined;

  private constructor(private readonly settings: Settings) {
    this.authorizationServers = list(settings.OAUTH_AUTHORIZATION_SERVERS);
    this.#resource = settings.OAUTH_RESOURCE.replace(/\/$/, '');
  }

  /**
   * The resource server the settings describe; undefined when OAuth is off (no authorization server).
   * In production an authorization server must be reached over https (loopback aside): its keys decide who may act.
   */
  static fromSettings(settings: Settings): ResourceServer | undefined {
    if (settings.OAUTH_AUTHORIZATION_SERVERS.trim() === '') return undefined;
    const plain = list(settings.OAUTH_AUTHORIZATION_SERVERS).filter((issuer) => issuer.startsWith('http:') && !LOOPBACK.has(new URL(issuer).hostname));
    if (settings.NODE_ENV === 'production' && plain.length > 0) {
      throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `Setting OAUTH_AUTHORIZATION_SERVERS names ${plain.join(', ')} over plain http; use https in production.`);
    }
    return new ResourceServer(settings);
  }

  /** Sets the resource URI from the public base URL, once it is known, unless OAUTH_RESOURCE names it. */
  useBaseUrl(publicBaseUrl: string): void {
    if (this.#resource === '') this.#resource = new URL(publicBaseUrl).origin;
  }

  /** The resource URI of the REST API; with `mcp`, of the MCP endpoint. */
  resource(mcp = false): string {
    return mcp ? `${this.#resource}/mcp` : this.#resource;
  }

  /**
   * Ties access tokens to one incarnation of their agent: a token issued (`iat`) before the agent now
   * under its `agentId` was created was issued for an earlier agent under that id and is refused.
   */
  useAgents(createdAt: (agentId: string) => Promise<string | undefined>): void {
    this.#agentCreatedAt = createdAt;
  }

  /** The principal of a JWT access token; throws UNAUTHORIZED (invalid_token) when it is not valid here. */
  async verify(token: string): Promise<Principal> {
    this.#tokens ??= new AccessTokens({
      issuers: this.authorizationServers,
      audiences: list(this.settings.OAUTH_AUDIENCE).length > 0 ? list(this.settings.OAUTH_AUDIENCE) : [this.resource(), this.resource(true)],
      clockSkewSeconds: this.settings.OAUTH_CLOCK_SKEW_SECONDS,
      agentClaim: this.settings.OAUTH_AGENT_CLAIM,
    });
    const principal = await this.#tokens.verify(token);
    if (principal.kind === 'client') await this.#checkIncarnation(token, principal.agentId);
    return principal;
  }

  /** Refuses a token issued before its agent was created (compared in whole seconds, as `iat` is); an agent that does not exist is the route's NOT_FOUND. */
  async #checkIncarnation(token: string, agentId: string): Promise<void> {
    const createdAt = await this.#agentCreatedAt?.(agentId);
    if (createdAt === undefined) return;
    const { iat } = decodeJwt(token);
    if (typeof iat !== 'number') {
      throw new BearerRefusal(ErrorCodes.UNAUTHORIZED, 'The access token has no iat claim, so it cannot be told from one issued for an earlier agent under the same agentId.', { error: 'invalid_token' });
    }
    if (iat < Math.floor(Date.parse(createdAt) / 1000)) {
      throw new BearerRefusal(ErrorCodes.UNAUTHORIZED, `The access token was issued before agent ${agentId} was provisioned, for an earlier agent under that id; get a new one.`, { error: 'invalid_token' });
    }
  }

  /** The metadata document of the REST API, or with `mcp` of the MCP endpoint. */
  metadata(mcp = false): ResourceMetadata {
    return {
      resource: this.resource(mcp),
      authorization_servers: this.authorizationServers,
      scopes_supported: SCOPES_SUPPORTED,
      bearer_methods_supported: ['header'],
      resource_name: mcp ? 'Switchboard MCP' : 'Switchboard API',
      resource_documentation: `${this.#resource}/api/v1/integration-guide`,
    };
  }

  /** The URL of the metadata document for a request path: the MCP endpoint's for `/mcp`, else the API's. */
  metadataUrl(path: string): string {
    return `${this.#resource}${METADATA_PATH}${path === '/mcp' ? '/mcp' : ''}`;
  }

  /** The `WWW-Authenticate` challenge of a refusal on `path`. */
  challenge(path: string, bearer: BearerError, description?: string): string {
    return challengeOf(bearer, this.metadataUrl(path), description);
  }
}
