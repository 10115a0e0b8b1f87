import { hasErrorCode } from '@switchboard/sdk';
import type { Bus } from '../bus/bus.js';
import { DEFAULT_PARTITIONS, partitionOf } from '../cluster/partitions.js';
import { newSigningSecret } from '../provisioning/provisioner.js';
import { hashToken, newToken, type SecretBox } from '../secrets.js';
import { agentSubject } from '../protocol/index.js';
import { AGENT_OPERATIONS, checkResponse, type CallbackUrlResult, type OperationInput, type OperationName, type OperationResponse, type ProvisionResult } from '../protocol/operations.js';

/**
 * Operations that only read the agent's state: their answer is lost with nothing changed, so they wait
 * a short time (a request lost with a node that died as it arrived, or one queued behind a send's
 * provider attempts, answers TIMEOUT and the caller asks again) rather than a send's whole budget.
 */
const READS: ReadonlySet<string> = new Set<OperationName>(['get', 'getLimits', 'channelStatus', 'inboxRead', 'checkConsent']);

/** How long a read waits for its answer. */
export const READ_TIMEOUT_MS = 5_000;

export interface AgentClientOptions {
  /** Partitions of the cluster; callers and runtime nodes must agree. */
  partitions?: number;
  /**
   * In a cluster, how long to keep retrying a call refused with UNAVAILABLE (no node holds the
   * agent's partition yet, or a node just handed it over): a refused call was not acted on. 0 = no retry.
   */
  retryUnavailableMs?: number;
  /**
   * Seals the signing secret a provision sends and opens the one setCallbackUrl answers (SECRET_KEY,
   * the same on every process): agent tokens and signing secrets never cross the bus in clear.
   */
  box?: SecretBox;
}

/** Calls the catalogue's agent operations over the bus and checks their answers; the gateway's only way to agent state. */
export class AgentClient {
  readonly #partitions: number;
  readonly #retryMs: number;
  readonly #box: SecretBox | undefined;
  readonly #changeListeners = new Set<(agentId: string) => void>();
  readonly #sentListeners = new Set<(agentId: string, sent: OperationResponse<'send'>) => void>();

  constructor(
    private readonly bus: Bus,
    private readonly timeoutMs = 15_000,
    options: AgentClientOptions = {},
  ) {
    this.#partitions = options.partitions ?? DEFAULT_PARTITIONS;
    this.#retryMs = options.retryUnavailableMs ?? 0;
    this.#box = options.box;
  }

  /**
   * Runs catalogue operation `operation` on the agent's actor and checks its answer; `timeoutMs` overrides the client's time-out.
   * A provision mints the agent's client token and signing secret here, sends the token's hash and the
   * sealed secret, and returns both in clear to its caller only; setCallbackUrl's secret is opened here.
   */
  async call<K extends OperationName>(operation: K, agentId: string, ...[payload, options]: CallArgs<K>): Promise<ClientResponse<K>> {
    if (operation === 'provision') return (await this.#provision(agentId, payload as ClientInput<'provision'>, options)) as ClientResponse<K>;
    const answer = checkResponse(operation, await this.request(operation, agentId, payload ?? {}, options));
    if (operation === 'send') for (const listener of this.#sentListeners) listener(agentId, answer as OperationResponse<'send'>);
    if (operation !== 'setCallbackUrl') return answer as ClientResponse<K>;
    const { sealedSigningSecret, ...rest } = answer as OperationResponse<'setCallbackUrl'>;
    return { ...rest, signingSecret: sealedSigningSecret === null ? null : this.#sealer().open(sealedSigningSecret) } satisfies CallbackUrlResult as ClientResponse<K>;
  }

  async #provision(agentId: string, payload: ClientInput<'provision'>, options?: CallOptions): Promise<ProvisionResult> {
    const securityToken = newToken('sb_live');
    const signingSecret = payload.callbackUrl ? newSigningSecret() : undefined;
    const wire = { ...payload, tokenHash: hashToken(securityToken), ...(signingSecret ? { sealedSigningSecret: this.#sealer().seal(signingSecret) } : {}) };
    const { success, channels } = checkResponse('provision', await this.request('provision', agentId, wire, options));
    return { success, agentId, securityToken, channels, ...(signingSecret ? { signingSecret } : {}) };
  }

  #sealer(): SecretBox {
    if (!this.#box) throw new Error('AgentClient: provision and setCallbackUrl need the SecretBox (options.box).');
    return this.#box;
  }

  /**
   * Calls `listener` with the agent's id once an operation whose catalogue entry changes the agent's
   * record has been answered (or failed): what this process keeps of the agent may be out of date.
   * Returns the unsubscribe.
   */
  onChange(listener: (agentId: string) => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  /** Tells `listener` of each message sent through this client, as its send answered (the edge applies its receipts with it). */
  onSent(listener: (agentId: string, sent: OperationResponse<'send'>) => void): void {
    this.#sentListeners.add(listener);
  }

  /** Runs any operation the actors answer, unchecked (the actor system's own tests use operations of their own). */
  async request(operation: string, agentId: string, payload: object = {}, options: CallOptions = {}): Promise<unknown> {
    if (!changesAgent(operation)) return this.#request(operation, agentId, payload, options);
    try {
      return await this.#request(operation, agentId, payload, options);
    } finally {
      for (const listener of this.#changeListeners) listener(agentId);
    }
  }

  async #request(operation: string, agentId: string, payload: object, { timeoutMs = READS.has(operation) ? READ_TIMEOUT_MS : this.timeoutMs }: CallOptions): Promise<unknown> {
    const subject = agentSubject(partitionOf(agentId, this.#partitions), operation);
    const deadline = Date.now() + this.#retryMs;
    for (let delay = 25; ; delay = Math.min(delay * 2, 250)) {
      try {
        return await this.bus.request(subject, { ...payload, agentId }, { timeoutMs });
      } catch (err) {
        if (!hasErrorCode(err, 'UNAVAILABLE') || Date.now() + delay > deadline) throw err;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }
}

function changesAgent(operation: string): boolean {
  return (AGENT_OPERATIONS as Record<string, { changesAgent?: true } | undefined>)[operation]?.changesAgent === true;
}

export interface CallOptions {
  /** Overrides the client's time-out for this call. */
  timeoutMs?: number;
}

/** What a caller passes: the operation's input, less what the client adds itself (a provision's token hash and sealed secret). */
export type ClientInput<K extends OperationName> = K extends 'provision' ? Omit<OperationInput<'provision'>, 'tokenHash' | 'sealedSigningSecret'> : OperationInput<K>;
/** What a caller gets: the operation's answer, with the secrets the client minted or opened. */
export type ClientResponse<K extends OperationName> = K extends 'provision' ? ProvisionResult : K extends 'setCallbackUrl' ? CallbackUrlResult : OperationResponse<K>;

/** An operation's input and options; the input may be left out when the operation needs nothing but the agent. */
type CallArgs<K extends OperationName> = {} extends ClientInput<K> ? [payload?: ClientInput<K>, options?: CallOptions] : [payload: ClientInput<K>, options?: CallOptions];
