import { JetStreamApiError } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { LEASES_BUCKET } from '../protocol/index.js';
import type { NatsConnection } from '@nats-io/transport-node';
import pTimeout from 'p-timeout';
import type { Logger } from '../logger.js';
import { DEFAULT_PARTITIONS, partitionRanges, preferredOwner } from './partitions.js';

/** Why a node stopped holding a partition. */
export type LeaseEnd = 'released' | 'lost' | 'lapsed' | 'stopped';

export interface PartitionLeasesOptions {
  connection: NatsConnection;
  /** Unique per process (a restarted process takes a new one); letters, digits, `-`, `_`, `=`. */
  nodeId: string;
  partitions?: number;
  /** How long a lease lives without renewal; when the bucket already exists, its own TTL wins. */
  ttlMs?: number;
  /** KV bucket of the leases; `<bucket>_nodes` holds the nodes' heartbeats. */
  bucket?: string;
  /** JetStream replicas of the buckets when this creates them (default 1). */
  replicas?: number;
  logger?: Logger;
  /** The partition is now this node's, with `token` (the lease revision) as its fencing token; a throw hands it back. */
  onAcquired(partition: number, token: number): void | Promise<void>;
  /** The partition is no longer this node's: stop taking its work and let work in flight finish. */
  onReleased(partition: number, reason: LeaseEnd): void | Promise<void>;
}

interface Held {
  token: number;
  /** Local time before which the lease is surely still ours: renewal sent + TTL − one renewal period. */
  validUntil: number;
  releasing: boolean;
}

interface Seen {
  owner: string | null;
  at: number;
}

const WRONG_LAST_SEQUENCE = new Set([10071, 10164]);

/**
 * Ownership of agent partitions by runtime nodes, through leases in a JetStream KV bucket whose
 * entries expire after the TTL. A node takes a free partition with `create` (only one can), keeps it
 * by `update` against the revision it holds (so a node that lost it cannot renew), and acts on it only
 * while `holds()` — i.e. before its last successful renewal + TTL − margin, which is always before the
 * server lets anyone else take it. Rendezvous hashing over the live nodes says which node should hold
 * which partition; a node hands over partitions preferred by another (after its work drains) and
 * takes free ones it is preferred for at once, any free one after a TTL.
 * Safety rests on the server's compare-and-set alone; the watches only make takeover fast.
 */
export class PartitionLeases {
  readonly partitions: number;
  readonly nodeId: string;
  #ttlMs: number;
  #renewMs: number;
  #leases: KV | undefined;
  #nodes: KV | undefined;
  readonly #held = new Map<number, Held>();
  readonly #seen = new Map<number, Seen>();
  readonly #live = new Map<string, number>();
  readonly #freeSince = new Map<number, number>();
  readonly #releases = new Map<number, Promise<void>>();
  readonly #watchers: { stop(): void }[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** A round due when the next lease seen held by another node expires (a dead node's), before the next regular one. */
  #wake: NodeJS.Timeout | undefined;
  #tick: Promise<void> | undefined;
  #stopped = false;
  /** When this node's own heartbeat last went through (its watch may echo it before the server's answer). */
  #heardAt: number | undefined;

  constructor(private readonly options: PartitionLeasesOptions) {
    if (!/^[A-Za-z0-9_=-]+$/.test(options.nodeId)) throw new Error(`Node id ${options.nodeId} must use letters, digits, -, _ or =.`);
    this.nodeId = options.nodeId;
    this.partitions = options.partitions ?? DEFAULT_PARTITIONS;
    this.#ttlMs = options.ttlMs ?? 3000;
    this.#renewMs = Math.max(50, Math.floor(this.#ttlMs / 4));
  }

  /** The lease TTL in force (the bucket's own when it already existed). */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  /** Opens the buckets, starts watching them and takes this node's share of the partitions. */
  async start(): Promise<void> {
    const bucket = this.options.bucket ?? LEASES_BUCKET;
    const kvm = new Kvm(this.options.connection);
    this.#leases = await openBucket(kvm, bucket, this.#ttlMs, this.options.replicas ?? 1);
    this.#nodes = await openBucket(kvm, `${bucket}_nodes`, this.#ttlMs, this.options.replicas ?? 1);
    const ttl = (await this.#leases.status()).ttl;
    if (ttl > 0 && ttl !== this.#ttlMs) {
      this.options.logger?.warn({ bucket, ttlMs: ttl, wanted: this.#ttlMs }, 'lease bucket exists with another TTL; using it');
      this.#ttlMs = ttl;
      this.#renewMs = Math.max(50, Math.floor(ttl / 4));
    }
    await this.#watch();
    this.#followReconnects().catch(() => undefined);
    await this.tick();
    this.#timer = setInterval(() => void this.tick(), this.#renewMs);
  }

  /** True while this node may act on the partition: check it before acting, every time. */
  holds(partition: number): boolean {
    const held = this.#held.get(partition);
    return held !== undefined && !held.releasing && Date.now() < held.validUntil;
  }

  /** Partitions this node holds now, ascending. */
  owned(): number[] {
    return [...this.#held.keys()].filter((p) => this.holds(p)).sort((a, b) => a - b);
  }

  /** Nodes whose heartbeat was seen within the TTL, this one included. */
  liveNodes(): string[] {
    const now = Date.now();
    return [...this.#live].filter(([node, at]) => node === this.nodeId || now - at < this.#ttlMs).map(([node]) => node).sort();
  }

  /** One round: heartbeat, renew, drop lapsed leases, hand over and take partitions. Runs on a timer. */
  tick(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#tick ??= this.#round().finally(() => (this.#tick = undefined));
    return this.#tick;
  }

  /** Hands every partition back (after its work drains) so others take over at once, then stops. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#timer);
    clearTimeout(this.#wake);
    await this.#tick;
    const held = [...this.#held.keys()];
    await Promise.all(held.map((p) => this.#release(p, 'stopped')));
    await Promise.all(this.#releases.values());
    this.#summarise('info', 'handed over', held, 'stopped');
    this.#stopWatching();
    await this.#nodes?.delete(this.nodeId).catch(() => undefined);
  }

  /**
   * One round must not stall the next: every KV call in it gives up after two renewal periods (a
   * renewal answered later than that could not have kept the lease valid anyway), and what a lost
   * lease lets drain (its actors' work) runs beside the rounds, never inside one.
   */
  #bounded<T>(call: Promise<T>, what: string): Promise<T> {
    return pTimeout(call, { milliseconds: 2 * this.#renewMs, message: `lease ${what} took longer than ${2 * this.#renewMs} ms` });
  }

  async #round(): Promise<void> {
    const nodes = this.#nodes!;
    const leases = this.#leases!;
    if (this.#watchers.length === 0) await this.#bounded(this.#watch(), 'watch').catch((err: unknown) => this.options.logger?.debug({ err }, 'lease watch not made again yet'));
    let heard = false;
    try {
      await this.#bounded(nodes.put(this.nodeId, JSON.stringify({ at: new Date().toISOString() })), 'heartbeat');
      this.#heardSelf(Date.now());
      heard = true;
    } catch (err) {
      this.options.logger?.debug({ err, node: this.nodeId }, 'heartbeat failed');
    }
    const lost: number[] = [];
    await Promise.all(
      [...this.#held].filter(([, h]) => !h.releasing).map(async ([partition, held]) => {
        const sentAt = Date.now();
        try {
          held.token = await this.#bounded(leases.update(key(partition), this.#value(), held.token), 'renewal');
          held.validUntil = sentAt + this.#ttlMs - this.#renewMs;
        } catch (err) {
          if (isWrongSequence(err)) {
            if (this.#drop(partition, 'lost')) lost.push(partition);
          }
          else this.options.logger?.debug({ err, partition }, 'lease renewal failed');
        }
      }),
    );
    const now = Date.now();
    const lapsed: number[] = [];
    for (const [partition, held] of this.#held) {
      if (!held.releasing && now >= held.validUntil && this.#drop(partition, 'lapsed')) lapsed.push(partition);
    }
    this.#summarise('warn', 'lost (another node holds them); no longer acting on them', lost, 'lost');
    this.#summarise('warn', 'lapsed (not renewed in time); no longer acting on them', lapsed, 'lapsed');
    // A node the others cannot hear has no view of who is live: it keeps what it holds and takes or hands over nothing.
    if (this.#stopped || !heard) return;
    const live = this.liveNodes();
    const attempts: Promise<number | undefined>[] = [];
    const releases = new Map<number, Promise<void>>();
    let expiring = Infinity;
    for (let partition = 0; partition < this.partitions; partition++) {
      const preferred = preferredOwner(partition, live);
      const held = this.#held.get(partition);
      if (held) {
        if (!held.releasing && preferred !== this.nodeId) releases.set(partition, this.#release(partition, 'released'));
        continue;
      }
      const seen = this.#seen.get(partition);
      const free = seen === undefined || seen.owner === null || now - seen.at >= this.#ttlMs;
      if (!free) {
        this.#freeSince.delete(partition);
        // Held elsewhere: if its holder died, the lease is free at this time; look again then, not up to a renewal period later.
        if (seen.owner !== this.nodeId) expiring = Math.min(expiring, seen.at + this.#ttlMs);
        continue;
      }
      const since = this.#freeSince.get(partition) ?? now;
      this.#freeSince.set(partition, since);
      // Another live node's to take: left to it for a TTL (it may be back from the same outage a moment
      // later), then taken all the same, so that a partition never waits on a node that cannot take it.
      if (preferred === this.nodeId || now - since >= this.#ttlMs) attempts.push(this.#acquire(partition));
    }
    if (expiring - now < this.#renewMs) {
      clearTimeout(this.#wake);
      this.#wake = setTimeout(() => void this.tick(), Math.max(0, expiring - now) + 5);
      this.#wake.unref();
    }
    // One line per round and kind of change, not one per partition.
    if (releases.size > 0) void Promise.all(releases.values()).then(() => this.#summarise('info', 'handed over', [...releases.keys()], 'released'));
    const acquired = (await Promise.all(attempts)).filter((p) => p !== undefined);
    this.#summarise('info', 'acquired', acquired);
  }

  /**
   * This node's heartbeat went through. After a silence of a TTL or more (NATS away, this process
   * paused), the others' silence meant nothing: the nodes live when it fell silent get a TTL to be
   * heard again before they count as gone, or every node back from a NATS restart would see itself
   * alone, take every free partition and hand most of them over again a moment later.
   */
  #heardSelf(now: number): void {
    const last = this.#heardAt;
    if (last !== undefined && now - last >= this.#ttlMs) {
      for (const [node, at] of this.#live) if (last - at < this.#ttlMs) this.#live.set(node, now);
    }
    this.#heardAt = now;
    this.#live.set(this.nodeId, now);
  }

  /** Logs one line for a round's partitions of one kind of change, e.g. `partitions acquired: 0-15,20 (17)`. */
  #summarise(level: 'info' | 'warn', what: string, partitions: readonly number[], reason?: LeaseEnd): void {
    if (partitions.length === 0) return;
    const ranges = partitionRanges(partitions);
    this.options.logger?.[level]({ node: this.nodeId, partitions: ranges, count: partitions.length, ...(reason ? { reason } : {}) }, `partitions ${what}: ${ranges} (${partitions.length})`);
  }

  /** Takes a free partition; resolves with it when taken. */
  async #acquire(partition: number): Promise<number | undefined> {
    const sentAt = Date.now();
    let token: number;
    try {
      token = await this.#bounded(this.#leases!.create(key(partition), this.#value()), 'acquisition');
    } catch (err) {
      // Still held (a lease the server has not expired yet): not free, so another node's grace starts again.
      if (isWrongSequence(err)) this.#freeSince.delete(partition);
      else this.options.logger?.debug({ err, partition }, 'lease acquisition failed');
      return undefined;
    }
    if (this.#stopped) {
      await this.#leases!.delete(key(partition), { previousSeq: token }).catch(() => undefined);
      return undefined;
    }
    this.#held.set(partition, { token, validUntil: sentAt + this.#ttlMs - this.#renewMs, releasing: false });
    this.#freeSince.delete(partition);
    // Taken up beside the rounds (it may write to the store), so renewals never wait on it.
    void Promise.resolve()
      .then(() => this.options.onAcquired(partition, token))
      .catch((err: unknown) => {
        // Not ready to serve it (its fence could not be written): hand it back to be taken again.
        this.options.logger?.warn({ err, node: this.nodeId, partition }, 'partition not taken up; handing it back');
        void this.#release(partition, 'released');
      });
    return partition;
  }

  /** Stops acting, lets work drain, then deletes the lease so the preferred node takes it at once. */
  #release(partition: number, reason: LeaseEnd): Promise<void> {
    const held = this.#held.get(partition);
    if (!held || held.releasing) return this.#releases.get(partition) ?? Promise.resolve();
    held.releasing = true;
    const release = this.#handOver(partition, held, reason).finally(() => this.#releases.delete(partition));
    this.#releases.set(partition, release);
    return release;
  }

  async #handOver(partition: number, held: Held, reason: LeaseEnd): Promise<void> {
    try {
      await this.options.onReleased(partition, reason);
    } finally {
      this.#held.delete(partition);
      await this.#leases!.delete(key(partition), { previousSeq: held.token }).catch(() => undefined);
      this.options.logger?.debug({ node: this.nodeId, partition, reason }, 'partition handed over');
    }
  }

  /**
   * The lease is gone (taken or expired): stop acting at once, nothing to hand over; its work drains
   * beside the rounds. True when it was held (the round logs the summary).
   */
  #drop(partition: number, reason: LeaseEnd): boolean {
    if (!this.#held.delete(partition)) return false;
    void Promise.resolve()
      .then(() => this.options.onReleased(partition, reason))
      .catch((err: unknown) => this.options.logger?.error({ err, node: this.nodeId, partition }, 'releasing a lost partition failed'));
    return true;
  }

  #value(): string {
    return JSON.stringify({ node: this.nodeId });
  }

  /**
   * A server restarted under the watches loses their consumers, and the client notices only after
   * missed heartbeats, seconds later: blind meanwhile, this node would see the others as gone. So the
   * watches are made anew on every reconnect (a new watch starts from each key's latest value); the
   * rounds make them again while that fails (JetStream still starting).
   */
  async #followReconnects(): Promise<void> {
    for await (const status of this.options.connection.status()) {
      if (status.type === 'reconnect' && !this.#stopped) this.#stopWatching();
    }
  }

  #stopWatching(): void {
    for (const w of this.#watchers.splice(0)) w.stop();
  }

  async #watch(): Promise<void> {
    const leases = await this.#leases!.watch({ key: 'p.>' });
    const nodes = await this.#nodes!.watch().catch((err: unknown) => {
      leases.stop();
      throw err;
    });
    this.#stopWatching();
    this.#watchers.push(leases, nodes);
    void (async () => {
      for await (const entry of leases) {
        const partition = Number(entry.key.slice(2));
        const owner = entry.operation === 'PUT' ? ownerOf(entry.string()) : null;
        this.#seen.set(partition, { owner, at: Date.now() });
      }
    })().catch((err: unknown) => this.options.logger?.warn({ err }, 'lease watch ended'));
    void (async () => {
      for await (const entry of nodes) {
        if (entry.operation === 'PUT') this.#live.set(entry.key, Date.now());
        else this.#live.delete(entry.key);
      }
    })().catch((err: unknown) => this.options.logger?.warn({ err }, 'node watch ended'));
  }
}

function key(partition: number): string {
  return `p.${partition}`;
}

function ownerOf(value: string): string | null {
  try {
    return (JSON.parse(value) as { node?: string }).node ?? null;
  } catch {
    return null;
  }
}

function isWrongSequence(err: unknown): boolean {
  return err instanceof JetStreamApiError && WRONG_LAST_SEQUENCE.has(err.code);
}

async function openBucket(kvm: Kvm, name: string, ttlMs: number, replicas: number): Promise<KV> {
  try {
    return await kvm.create(name, { ttl: ttlMs, history: 1, replicas });
  } catch {
    return kvm.open(name);
  }
}
