import { Type } from '@sinclair/typebox';

/** The protected-resource metadata document (RFC 9728). */
export const ResourceMetadataResponse = Type.Object({
  resource: Type.String({ description: "This resource's URI (RFC 8707): the audience its access tokens carry." }),
  authorization_servers: Type.Array(Type.String(), { description: 'Issuer URLs of the authorization servers whose access tokens are accepted.' }),
  scopes_supported: Type.Array(Type.String(), { description: 'switchboard:send, switchboard:send:<channel>, switchboard:call, switchboard:read, switchboard:configure.' }),
  bearer_methods_supported: Type.Array(Type.String(), { description: 'Always ["header"]: never a query string.' }),
  resource_name: Type.String(),
  resource_documentation: Type.String(),
});
