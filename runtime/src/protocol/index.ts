/**
 * The wire of cluster mode in one place: every NATS subject, stream and KV bucket name a gateway or a
 * runtime node uses, and the builders that both ends of a subject share; operations.ts beside it is the
 * catalogue of agent operations, the shapes that cross `sb.agent`. deploy/nats/switchboard-accounts.conf
 * grants each role its subjects by these names: renaming one here means changing the permissions there.
 * This folder imports nothing from the rest of the runtime, only packages (test/dependency-direction.test.ts).
 */

/**
 * The version of this wire, carried by every bus message as the `Sb-Protocol` header. A change to a
 * subject or to a shape that crosses it raises it, and the release that raises it still reads what the
 * one before sent, so that a cluster rolls one process at a time: a process serves a peer one version
 * older or newer and refuses any other (an unversioned peer, from a release before versions, is 0),
 * with a log line that names both versions (docs/cluster.md, "Rolling upgrades").
 */
export const PROTOCOL_VERSION = 1;

/** The header that carries {@link PROTOCOL_VERSION}. */
export const PROTOCOL_HEADER = 'Sb-Protocol';

/** Whether a peer speaking `version` (undefined: no header) is served: one version older or newer, never unversioned. */
export function servesProtocol(version: number | undefined, own = PROTOCOL_VERSION): boolean {
  if (version === undefined || !Number.isInteger(version)) return false;
  return version >= Math.max(1, own - 1) && version <= own + 1;
}

/** Agent operations: `sb.agent.<partition>.<operation>`; gateways and nodes request, the node holding the partition serves. */
export const AGENT_SUBJECT = 'sb.agent';

/** Live reach of an agent's MCP session: `sb.live.<agentId>`; runtime nodes request, the gateway holding the session serves. */
export const LIVE_SUBJECT = 'sb.live';

/**
 * Presence of live sessions: on `sb.presence.<gateway>` each gateway publishes the agents whose live
 * sessions it opens and closes, and a beat; runtime nodes follow it, so that a delivery asks over
 * `sb.live` only when some gateway may hold a session. `sb.presence.sync.<gateway>`: a node asks one
 * gateway for its whole list.
 */
export const PRESENCE_SUBJECT = 'sb.presence';

/** Voice turns for calls held by another gateway: `sb.turn.<agentId>`; gateways request and serve. */
export const TURN_SUBJECT = 'sb.turn';

/**
 * Inbox hints: `sb.inbox.<agentId>`; runtime nodes publish after the commit that appended an entry to
 * the agent's inbox, every gateway hears it (no queue group) and tells its listeners to read again.
 */
export const INBOX_SUBJECT = 'sb.inbox';

/**
 * Revoked client tokens: `sb.revoked`, carrying the agent whose tokens a commit revoked (a deprovision);
 * whichever process committed it publishes, every process hears it (no queue group) and forgets the
 * agent's tokens it kept.
 */
export const REVOKED_SUBJECT = 'sb.revoked';

/** Runtime events (metrics): `sb.events.<name>`; runtime nodes publish, gateways subscribe. */
export const EVENT_SUBJECT = 'sb.events';

/** The JetStream stream of durable work, and its subjects `sb.work.<kind>`; runtime nodes only. */
export const WORK_STREAM = 'SB_WORK';
export const WORK_SUBJECT_PREFIX = 'sb.work';

/** The KV bucket of partition leases (and `<bucket>_nodes`, the live nodes); runtime nodes only. */
export const LEASES_BUCKET = 'sb_leases';

/** The NATS server's advisory that a client connection closed, in any account (system account only): how a node hears another's crash. */
export const DISCONNECT_ADVISORIES = '$SYS.ACCOUNT.*.DISCONNECT';

/** The KV bucket of call sessions (the call directory); gateways and runtime nodes. */
export const CALLS_BUCKET = 'sb_calls';

/** Agent ids may hold dots, which NATS reads as token separators, and never hold `~`. */
function agentToken(agentId: string): string {
  return agentId.replaceAll('.', '~');
}

/** The operation a gateway's readiness sends to each partition: answered by its holder unless the partition keeps failing. */
export const PARTITION_PROBE = '_probe';

/** `sb.agent.<partition>.<operation>`. */
export function agentSubject(partition: number, operation: string): string {
  return `${AGENT_SUBJECT}.${partition}.${operation}`;
}

/** `sb.agent.*.*`: every agent operation of every partition (embedded, one process serves them all). */
export function agentOperationsWildcard(): string {
  return `${AGENT_SUBJECT}.*.*`;
}

/** `sb.agent.<partition>.*`: every operation of one partition (the node holding it listens). */
export function partitionOperationsWildcard(partition: number): string {
  return `${AGENT_SUBJECT}.${partition}.*`;
}

/** The operation an `sb.agent.<partition>.<operation>` subject names. */
export function operationOfAgentSubject(subject: string): string {
  return subject.slice(subject.lastIndexOf('.') + 1);
}

/**
 * The subject a gateway holding an agent's live MCP session listens on; runtime nodes deliver to it
 * by request (no responders: no live session anywhere).
 */
export function liveSubject(agentId: string): string {
  return `${LIVE_SUBJECT}.${agentToken(agentId)}`;
}

/**
 * The subject a gateway holding an agent's MCP session with sampling listens on for the voice turns
 * of calls held by other gateways (no responders: no such session anywhere).
 */
export function turnSubject(agentId: string): string {
  return `${TURN_SUBJECT}.${agentToken(agentId)}`;
}

/** `sb.inbox.<agentId>`: where the runtime announces that the agent's inbox has a new entry. */
export function inboxSubject(agentId: string): string {
  return `${INBOX_SUBJECT}.${agentToken(agentId)}`;
}

/** `sb.inbox.*`: every agent's inbox announcements. */
export function inboxWildcard(): string {
  return `${INBOX_SUBJECT}.*`;
}

/** The agent an `sb.inbox.<agentId>` subject names (agent ids never hold `~`, so the token reverses exactly). */
export function agentOfInboxSubject(subject: string): string {
  return subject.slice(INBOX_SUBJECT.length + 1).replaceAll('~', '.');
}

/** `sb.presence.<gateway>`: where a gateway publishes the agents it holds live sessions of (`gateway` is a token without dots). */
export function presenceSubject(gateway: string): string {
  return `${PRESENCE_SUBJECT}.${gateway}`;
}

/** `sb.presence.sync.<gateway>`: where a gateway answers with its whole list. */
export function presenceSyncSubject(gateway: string): string {
  return `${PRESENCE_SUBJECT}.sync.${gateway}`;
}

/** `sb.presence.*`: every gateway's presence notes (not `sb.presence.sync.<gateway>`, which has one token more). */
export function presenceWildcard(): string {
  return `${PRESENCE_SUBJECT}.*`;
}

/** The gateway an `sb.presence.<gateway>` subject names. */
export function gatewayOfPresenceSubject(subject: string): string {
  return subject.slice(PRESENCE_SUBJECT.length + 1);
}

/** `sb.events.<name>`: where runtime nodes publish the event `name`. */
export function eventSubject(name: string): string {
  return `${EVENT_SUBJECT}.${name}`;
}

/** `sb.revoked`: where a process announces the tokens a commit of its revoked, and every process hears it. */
export function revokedSubject(): string {
  return REVOKED_SUBJECT;
}

/** `sb.events.batch`: where runtime nodes publish the events they gathered, as `[name, payload]` pairs in order. */
export function eventBatchSubject(): string {
  return eventSubject('batch');
}

/** `sb.events.*`: every forwarded event. */
export function eventWildcard(): string {
  return `${EVENT_SUBJECT}.*`;
}

/** The event an `sb.events.<name>` subject names. */
export function eventOfSubject(subject: string): string {
  return subject.slice(EVENT_SUBJECT.length + 1);
}

/** `<prefix>.<kind>` (default `sb.work.<kind>`): where work items of `kind` are stored. */
export function workSubject(kind: string, prefix = WORK_SUBJECT_PREFIX): string {
  return `${prefix}.${kind}`;
}

/** `<prefix>.>` (default `sb.work.>`): the subjects of the work stream. */
export function workStreamSubjects(prefix = WORK_SUBJECT_PREFIX): string {
  return `${prefix}.>`;
}

/**
 * `_INBOX_<role>`: the inbox prefix of a role's connections, so that NATS can let a gateway read its
 * replies and not a runtime node's (deploy/nats/switchboard-accounts.conf).
 */
export function roleInboxPrefix(role: 'gateway' | 'node'): string {
  return `_INBOX_${role}`;
}

/** `<inbox>.<token>`: where the reply to one request comes, under a connection's reply inbox. */
export function replySubject(inbox: string, token: string): string {
  return `${inbox}.${token}`;
}

/** `<inbox>.*`: every reply to a connection's requests. */
export function repliesWildcard(inbox: string): string {
  return `${inbox}.*`;
}

/** The request token a reply subject `<inbox>.<token>` names. */
export function tokenOfReplySubject(inbox: string, subject: string): string {
  return subject.slice(inbox.length + 1);
}
