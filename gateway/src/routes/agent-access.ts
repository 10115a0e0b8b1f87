import { ErrorCodes } from '@switchboard/sdk';
import { mayActFor, type Principal } from '@switchboard/runtime';
import { fail } from '../http/errors.js';

/**
 * The agent a request acts for: the one named, when the principal may act for it, else the
 * client token's own agent. A team or orchestrator token must name one.
 */
export function resolveAgentId(principal: Principal, named: string | undefined): string {
  if (named !== undefined) {
    if (!mayActFor(principal, named)) fail(ErrorCodes.FORBIDDEN, `This token belongs to another agent and may not act for ${named}.`);
    return named;
  }
  if (principal.kind === 'client') return principal.agentId;
  return fail(ErrorCodes.VALIDATION_FAILED, 'agentId is required with a team or orchestrator token.');
}
