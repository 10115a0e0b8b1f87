import { Type } from '@sinclair/typebox';
import { defineOperation, type AgentOperation, type OperationContext } from '../actors/operation.js';

/** A test's own payload: the agent's id and whatever else the test sends. */
type AnyPayload = { agentId: string } & Record<string, unknown>;

const AnyRequest = Type.Unsafe<AnyPayload>(Type.Object({ agentId: Type.String({ minLength: 1 }) }));

/**
 * An agent operation outside the catalogue, for tests of the actor system and of partition placement:
 * it takes any payload with an agent id, answers anything, runs in the mailbox and is given the tenure.
 */
export function testOperation(name: string, handle: (context: OperationContext<never, true>, payload: AnyPayload) => Promise<unknown>): AgentOperation {
  return defineOperation({ name, request: AnyRequest, answer: Type.Unknown(), mailbox: true, tenure: true } as const, { needs: [], handle });
}
