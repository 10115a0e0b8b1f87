import { timingSafeEqual } from 'node:crypto';
import type { SecretBox } from '../secrets.js';

/** What the link's code is made for: nothing else's code opens it. */
const PURPOSE = 'list-unsubscribe';

/** Who a one-click unsubscribe link names: the agent and the recipient, and the agent's incarnation. */
export interface UnsubscribeSubject {
  readonly agentId: string;
  readonly address: string;
}

/**
 * The path segment of an agent's unsubscribe link for one recipient: the agent and the address
 * (base64url JSON), then an HMAC under a key derived from the store key over both and the agent's
 * `createdAt`, so no one without the key can make one, and an agent deleted and created again under
 * the same id does not honour its predecessor's links. Nothing is stored: the link proves itself.
 */
export function unsubscribeToken(box: SecretBox, agent: { agentId: string; createdAt: string }, address: string): string {
  const subject = Buffer.from(JSON.stringify([agent.agentId, address])).toString('base64url');
  return `${subject}.${box.mac(PURPOSE, macInput(agent, address)).toString('base64url')}`;
}

/** The agent and address a token names, unverified (to route it to the agent), or undefined when it is not a token's shape. */
export function unsubscribeSubject(token: string): UnsubscribeSubject | undefined {
  const [subject, code, extra] = token.split('.');
  if (!subject || !code || extra !== undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(subject, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
    const [agentId, address] = parsed as unknown[];
    return typeof agentId === 'string' && typeof address === 'string' ? { agentId, address } : undefined;
  } catch {
    return undefined;
  }
}

/** The address the token names when it was made for this agent (this incarnation) under this key; undefined when forged or stale. */
export function verifiedAddress(box: SecretBox, agent: { agentId: string; createdAt: string }, token: string): string | undefined {
  const subject = unsubscribeSubject(token);
  if (!subject || subject.agentId !== agent.agentId) return undefined;
  const given = Buffer.from(token.slice(token.indexOf('.') + 1), 'base64url');
  const expected = box.mac(PURPOSE, macInput(agent, subject.address));
  return given.length === expected.length && timingSafeEqual(given, expected) ? subject.address : undefined;
}

/**
 * The headers of an email that a recipient can unsubscribe from with one click (RFC 2369's
 * `List-Unsubscribe` with an HTTPS URI; RFC 8058's `List-Unsubscribe-Post`, which says a POST to it
 * unsubscribes, so a mail client can do it without opening a page).
 */
export function unsubscribeHeaders(publicBaseUrl: string, token: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${publicBaseUrl}/unsubscribe/${token}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

const macInput = (agent: { agentId: string; createdAt: string }, address: string) => JSON.stringify([agent.agentId, agent.createdAt, address]);
