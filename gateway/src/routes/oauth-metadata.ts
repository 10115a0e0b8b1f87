import { ErrorCodes } from '@switchboard/sdk';
import { fail } from '../http/errors.js';
import { json, type RouteDefinition } from '../http/types.js';
import { METADATA_PATH, type ResourceServer } from '../oauth/resource-server.js';
import { errorResponses } from '../schemas/common.js';
import { ResourceMetadataResponse } from '../schemas/oauth.js';

/**
 * The protected-resource metadata (RFC 9728): the API's at the well-known path, the MCP endpoint's
 * at the same path with `/mcp` appended. 404 while OAuth is off.
 */
export function oauthMetadataRoutes(oauth: ResourceServer | undefined): RouteDefinition[] {
  const route = (mcp: boolean): RouteDefinition => ({
    method: 'GET',
    path: mcp ? `${METADATA_PATH}/mcp` : METADATA_PATH,
    operationId: mcp ? 'mcpResourceMetadata' : 'resourceMetadata',
    summary: mcp
      ? 'OAuth protected-resource metadata of the MCP endpoint (RFC 9728): its resource URI and authorization servers.'
      : 'OAuth protected-resource metadata of the REST API (RFC 9728): its resource URI, authorization servers and scopes.',
    tag: 'OAuth',
    auth: 'public',
    responses: { 200: { description: 'The metadata document.', schema: ResourceMetadataResponse }, ...errorResponses(404) },
    handler() {
      if (!oauth) fail(ErrorCodes.NOT_FOUND, 'OAuth is not configured on this server (OAUTH_AUTHORIZATION_SERVERS); use a static bearer token.');
      return json(200, oauth.metadata(mcp), { 'cache-control': 'max-age=300' });
    },
  });
  return [route(false), route(true)];
}
