import { SwitchboardError } from '@switchboard/sdk';

/** An RFC 6750 error a bearer-token refusal names in `WWW-Authenticate`. */
export interface BearerError {
  readonly error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  /** With `insufficient_scope`: the scope the request needs. */
  readonly scope?: string;
}

/**
 * A refused credential: the contract's error (UNAUTHORIZED, FORBIDDEN, BAD_REQUEST) and what its
 * `WWW-Authenticate` challenge says. `challenge` is set where the path of the request is known.
 */
export class BearerRefusal extends SwitchboardError {
  challenge: string | undefined;

  constructor(
    code: string,
    message: string,
    readonly bearer: BearerError = {},
  ) {
    super(code, message);
  }
}

/** The `WWW-Authenticate` value of a refusal; `resourceMetadata` is the URL of the protected-resource metadata, when OAuth is on. */
export function challengeOf(bearer: BearerError, resourceMetadata: string | undefined, description?: string): string {
  const params = [`realm="switchboard"`];
  if (resourceMetadata) params.push(`resource_metadata="${resourceMetadata}"`);
  if (bearer.error) params.push(`error="${bearer.error}"`);
  if (bearer.scope) params.push(`scope="${bearer.scope}"`);
  // Quoted-string: drop what cannot sit inside quotes.
  if (description && bearer.error) params.push(`error_description="${description.replace(/["\\\r\n]/g, '')}"`);
  return `Bearer ${params.join(', ')}`;
}
