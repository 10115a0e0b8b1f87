/** Who a request acts as, resolved from its bearer token. */
export type Principal =
  | { readonly kind: 'orchestrator' }
  | { readonly kind: 'team' }
  | {
      readonly kind: 'client';
      readonly agentId: string;
      /** An OAuth access token's scopes; absent for a static client token, which may do all its agent may. */
      readonly scopes?: readonly string[];
      /**
       * Which token this is, among the agent's: a static token's record id, or an access token's grant
       * (issuer, subject, client), which its refreshed tokens share. What a token makes (a task) is its own.
       */
      readonly tokenId?: string;
    };

/** True when the principal may act for `agentId` (orchestrator and team may act for any agent). */
export function mayActFor(principal: Principal, agentId: string): boolean {
  return principal.kind !== 'client' || principal.agentId === agentId;
}
