import type { DeprovisionResult, OperationResponse, ProvisionRequest } from '../protocol/operations.js';
import { randomBytes } from 'node:crypto';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { CHANNEL_SPECS, ErrorCodes, SwitchboardError, type Channel } from '@switchboard/sdk';
import type { TokenService } from '../auth/token-service.js';
import type { SecretBox } from '../secrets.js';
import type { SqlExecutor } from '../store/database.js';
import type { AgentChannel, AgentRecord } from '../store/repositories/agents.js';
import type { PoolName } from '../store/repositories/pools.js';
import type { Store } from '../store/store.js';
import { POOL_OF, poolChannel } from './channels.js';

/** A new callback signing secret in the Standard Webhooks form. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * Creates and deletes agents with their channels. Provisioning is one transaction: every channel
 * is claimed or none is, and the client token is issued with it.
 */
export class Provisioner {
  constructor(
    private readonly store: Store,
    private readonly tokens: TokenService,
    private readonly box: SecretBox,
    private readonly emailDomain: string,
    /** Where the agent's call recordings are removed once its deprovisioning commits. */
    private readonly recordings?: { remove(files: readonly string[]): Promise<void> },
    /** A channel's providers other than its own (where its sends may fail over to), in order. */
    private readonly otherProviders: (channel: Channel) => readonly string[] = () => [],
  ) {}

  /** Creates the agent with the client token (by hash) and the sealed signing secret its caller minted. */
  async provision(request: ProvisionRequest): Promise<{ result: OperationResponse<'provision'>; record: AgentRecord }> {
    const channels = [...new Set(request.channels)];
    if (request.callbackUrl && !request.sealedSigningSecret) {
      throw new SwitchboardError(ErrorCodes.BAD_REQUEST, 'A provision with a callbackUrl carries the sealed signing secret its caller minted.');
    }
    return this.store.db.transaction(async (tx) => {
      const now = new Date().toISOString();
      const record: AgentRecord = {
        agentId: request.agentId,
        displayName: request.displayName,
        status: 'active',
        blockedChannels: [],
        callbackUrl: request.callbackUrl ?? null,
        sealedSigningSecret: request.callbackUrl ? request.sealedSigningSecret! : null,
        greeting: request.greeting ?? null,
        systemPrompt: request.systemPrompt ?? null,
        voice: request.voice ?? null,
        language: request.language ?? null,
        recordCalls: request.recordCalls ?? false,
        requireConsent: [...new Set(request.requireConsent ?? [])],
        listUnsubscribe: request.listUnsubscribe ?? false,
        channels: [],
        createdAt: now,
        updatedAt: now,
      };
      // The agent row comes first so pool entries can reference it; a taken id is a conflict even
      // when another node inserts it at the same moment.
      if (!(await this.store.agents.insert(tx, record))) {
        throw new SwitchboardError(ErrorCodes.CONFLICT, `Agent ${request.agentId} already exists; deprovision it first or pick another agentId.`);
      }
      const held = await this.#claimChannels(tx, request, channels);
      await this.store.agents.addChannels(tx, request.agentId, held, now);
      await this.tokens.registerClientToken(tx, request.agentId, request.tokenHash);
      const result: OperationResponse<'provision'> = {
        success: true,
        agentId: request.agentId,
        channels: Object.fromEntries(held.map((c) => [c.channel, { address: c.address, status: 'active' as const }])),
      };
      return { result, record: { ...record, channels: held } };
    });
  }

  /**
   * Deletes the agent, revokes its tokens, returns its channels and erases its content in one
   * transaction (an agent provisioned later under the same id starts empty), then removes its call
   * recordings' files.
   */
  async deprovision(agentId: string): Promise<DeprovisionResult> {
    const { result, recordings } = await this.store.db.transaction(async (tx) => {
      await this.store.agents.lockForRemoval(tx, agentId);
      const agent = await this.store.agents.get(agentId, tx);
      if (!agent) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `Agent ${agentId} does not exist.`);
      await this.store.pools.release(tx, agentId);
      await this.tokens.revokeClientTokens(tx, agentId);
      await this.store.limits.delete(tx, agentId);
      await this.store.inbox.deleteAgent(tx, agentId);
      await this.store.callbacks.deleteAgent(tx, agentId);
      const recordings = await this.store.agentContent.erase(tx, agentId);
      await this.store.agents.delete(tx, agentId);
      const result: DeprovisionResult = {
        success: true,
        agentId,
        status: 'deprovisioned',
        released: Object.fromEntries(agent.channels.map((c) => [c.channel, c.address])),
      };
      return { result, recordings };
    });
    this.tokens.announceRevoked(agentId);
    await this.recordings?.remove(recordings);
    return result;
  }

  async #claimChannels(tx: SqlExecutor, request: ProvisionRequest, channels: readonly Channel[]): Promise<AgentChannel[]> {
    const byPool = new Map<string, string>();
    const held: AgentChannel[] = [];
    for (const channel of channels) {
      const pool = POOL_OF[channel];
      let address = byPool.get(pool);
      if (address === undefined) {
        address = await this.#claim(tx, pool, request);
        byPool.set(pool, address);
      }
      const senders = await this.#claimSenders(tx, pool, channel, request.agentId, byPool);
      held.push({ channel, address, pool, ...(Object.keys(senders).length > 0 ? { senders } : {}) });
    }
    return held;
  }

  /**
   * A sender at each of the channel's other providers whose pool part has a free one (`telnyx:+1…`
   * entries), so its sends can fail over there; a provider with none is simply not one it can use.
   */
  async #claimSenders(tx: SqlExecutor, pool: PoolName, channel: Channel, agentId: string, byPool: Map<string, string>): Promise<Record<string, string>> {
    const senders: Record<string, string> = {};
    for (const provider of this.otherProviders(channel)) {
      const key = `${pool}@${provider}`;
      let address = byPool.get(key);
      if (address === undefined) {
        address = await this.store.pools.claim(tx, pool, agentId, provider);
        if (address === undefined) continue;
        byPool.set(key, address);
      }
      senders[provider] = address;
    }
    return senders;
  }

  async #claim(tx: SqlExecutor, pool: PoolName, request: ProvisionRequest): Promise<string> {
    if (pool === 'email') {
      const domain = (request.emailDomain ?? this.emailDomain).toLowerCase();
      if (!this.emailDomain) throw exhausted('email', 'no EMAIL_DOMAIN is configured');
      if (domain !== this.emailDomain.toLowerCase()) {
        throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `emailDomain must be ${this.emailDomain}, the domain this gateway sends from.`);
      }
      const address = `${request.agentId.toLowerCase()}@${domain}`;
      if (!(await this.store.pools.claimAddress(tx, 'email', address, request.agentId))) throw exhausted('email', `${address} is taken`);
      return address;
    }
    if (request.country && CHANNEL_SPECS[poolChannel(pool)].address.kind === 'e164') {
      // Another provisioning may take a candidate between the read and the claim: try the next.
      for (const address of await this.store.pools.freeAddresses(tx, pool)) {
        if (parsePhoneNumberFromString(address)?.country !== request.country) continue;
        if (await this.store.pools.claimAddress(tx, pool, address, request.agentId)) return address;
      }
      throw exhausted(pool, `no free number in ${request.country}`);
    }
    const address = await this.store.pools.claim(tx, pool, request.agentId);
    if (address === undefined) throw exhausted(pool, 'it is empty');
    return address;
  }
}

function exhausted(pool: PoolName, why: string): SwitchboardError {
  return new SwitchboardError(
    ErrorCodes.POOL_EXHAUSTED,
    `The ${pool} pool cannot serve this request: ${why}. Add entries with POST /admin/api/pools/${pool}; nothing was provisioned.`,
  );
}
