import { Kvm, type KV } from '@nats-io/kv';
import { LEASES_BUCKET } from '../protocol/index.js';
import type { NatsConnection } from '@nats-io/transport-node';
import pTimeout from 'p-timeout';
import type { Logger } from '../logger.js';
import { LeaseView, unservedShare, isWrongSequence, openHeartbeatBucket, openPartitionBucket, ownerValue, partitionKey as key, type OwnerEntry } from './lease-view.js';
import { NodeHeartbeat } from './node-heartbeat.js';
import { DEFAULT_PARTITIONS, partitionRanges, preferredOwner } from './partitions.js';

/** Why a node stopped holding a partition. */
export type LeaseEnd = 'released' | 'lost' | 'lapsed' | 'stopped';

export interface PartitionLeasesOptions {
  connection: NatsConnection;
  /** Unique per process (a restarted process takes a new one); letters, digits, `-`, `_`, `=`. */
  nodeId: string;
  partitions?: number;
  /** How long a lease lives without a heartbeat; when the heartbeat bucket already exists, its own TTL wins. */
  ttlMs?: number;
  /** KV bucket of the partition entries; `<bucket>_nodes` holds the nodes' heartbeats. */
  bucket?: string;
  /** JetStream replicas of the buckets when this creates them (default 1). */
  replicas?: number;
  logger?: Logger;
  /** The partition is now this node's, with `token` (the entry's revision) as its fencing token; a throw hands it back. */
  onAcquired(partition: number, token: number): void | Promise<void>;
  /** The partition is no longer this node's: stop taking work and let work in flight finish. */
  onReleased(partition: number, reason: LeaseEnd): void | Promise<void>;
  /** Whether this node can serve partitions now (its store answers); while not, it holds none and takes none. */
  fit?: () => boolean;
  /** Called on each renewal period's timer, beside the round and never waiting on it: checks that share its wake-up. */
  onPeriod?: () => void;
}

interface Held {
  token: number;
  /** Local time before which the lease is surely still ours: last heartbeat sent + TTL − one renewal period. */
  validUntil: number;
  releasing: boolean;
}

/**
 * Ownership of agent partitions by runtime nodes. A partition's entry (`p.<n>`, no TTL) names its
 * owner node and the incarnation of the owner's heartbeat; the lease lives as long as that heartbeat
 * (`<bucket>_nodes`, key = node id, entries expire after the TTL), renewed once per period for all of
 * a node's partitions by a compare-and-set on its revision, so a heartbeat that expired or was ended
 * can never be renewed: the node takes a new incarnation, and its old entries are free. A node takes a
 * partition with no entry by `create`, and one whose owner's heartbeat is gone (checked on the server)
 * by an update against the entry's revision; that revision is the fencing token. A node acts on a
 * partition only while `holds()`: before its last successful heartbeat + TTL − margin, which is before
 * the server can expire the heartbeat and let anyone in. Rendezvous hashing over the live nodes says
 * which node should hold which partition. Safety rests on the server's compare-and-set alone; the
 * watches only make takeover fast.
 */
export class PartitionLeases {
  readonly partitions: number;
  readonly nodeId: string;
  #ttlMs: number;
  #renewMs: number;
  #leases: KV | undefined;
  #nodes: KV | undefined;
  #view: LeaseView | undefined;
  #beat: NodeHeartbeat | undefined;
  readonly #held = new Map<number, Held>();
  readonly #freeSince = new Map<number, number>();
  readonly #releases = new Map<number, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  /** A round due when the next lease held by a silent node frees, before the next regular one. */
  #wake: NodeJS.Timeout | undefined;
  #tick: Promise<void> | undefined;
  #stopped = false;
  /** When this node's own heartbeat last went through. */
  #heardAt: number | undefined;
  /** Since when this node has held none of its preferred share while others held it. */
  #starving: { since: number; why: string; said: boolean } | undefined;

  constructor(private readonly options: PartitionLeasesOptions) {
    if (!/^[A-Za-z0-9_=-]+$/.test(options.nodeId)) throw new Error(`Node id ${options.nodeId} must use letters, digits, -, _ or =.`);
    this.nodeId = options.nodeId;
    this.partitions = options.partitions ?? DEFAULT_PARTITIONS;
    this.#ttlMs = options.ttlMs ?? 3000;
    this.#renewMs = Math.max(50, Math.floor(this.#ttlMs / 4));
  }

  /** The lease TTL in force (the heartbeat bucket's own when it already existed). */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  /** Opens the buckets, starts watching them and takes this node's share of the partitions. */
  async start(): Promise<void> {
    const bucket = this.options.bucket ?? LEASES_BUCKET;
    const kvm = new Kvm(this.options.connection);
    const replicas = this.options.replicas ?? 1;
    this.#leases = await openPartitionBucket(this.options.connection, kvm, bucket, replicas, this.options.logger);
    this.#nodes = await openHeartbeatBucket(kvm, `${bucket}_nodes`, this.#ttlMs, replicas);
    const ttl = (await this.#nodes.status()).ttl;
    if (ttl > 0 && ttl !== this.#ttlMs) {
      this.options.logger?.warn({ bucket, ttlMs: ttl, wanted: this.#ttlMs }, 'lease bucket exists with another TTL; using it');
      this.#ttlMs = ttl;
      this.#renewMs = Math.max(50, Math.floor(ttl / 4));
    }
    this.#beat = new NodeHeartbeat(this.#nodes, this.nodeId, (call, what) => this.#bounded(call, what));
    this.#view = new LeaseView(this.#leases, this.#nodes, {
      nodeId: this.nodeId,
      ttlMs: this.#ttlMs,
      bounded: (call, what) => this.#bounded(call, what),
      onEntry: (p, entry) => this.#entryChanged(p, entry),
      ...(this.options.logger ? { logger: this.options.logger } : {}),
    });
    await this.#view.watch();
    this.#followReconnects().catch(() => undefined);
    await this.tick();
    this.#timer = setInterval(() => (this.options.onPeriod?.(), void this.tick()), this.#renewMs);
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

  /** When this node's own heartbeat last went through (epoch ms); undefined before the first. */
  get heardAt(): number | undefined {
    return this.#heardAt;
  }

  /** Nodes whose heartbeat was seen within the TTL, this one included. */
  liveNodes(): string[] {
    return this.#view?.liveNodes() ?? [this.nodeId];
  }

  /** One round: heartbeat, drop lapsed leases, hand over and take partitions. Runs on a timer. */
  tick(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#tick ??= this.#round().finally(() => (this.#tick = undefined));
    return this.#tick;
  }

  /**
   * Another node's connection to NATS is gone (the server said so): its heartbeat is ended here, at the
   * revision last seen (so a heartbeat it renewed since, over a new connection, stands), and its
   * partitions are taken at once rather than at lease expiry. Safe as any takeover: the entries change
   * by compare-and-set under new tokens, and the node's writes under its old ones are refused by the store.
   */
  async endNode(node: string): Promise<boolean> {
    const beat = this.#view?.heartbeats.get(node);
    if (this.#stopped || node === this.nodeId || !beat) return false;
    try {
      await this.#bounded(this.#nodes!.delete(node, { previousSeq: beat.revision }), 'heartbeat end');
    } catch (err) {
      this.options.logger?.debug({ err, node }, 'heartbeat not ended (renewed since, or already gone)');
      return false;
    }
    this.#view!.forget(node);
    this.options.logger?.warn({ node: this.nodeId, gone: node }, `node ${node} lost its NATS connection; taking its partitions now`);
    // A round under way may have looked before the heartbeat ended: the next one sees it gone.
    await this.#tick;
    await this.tick();
    return true;
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
    this.#view?.stop();
    await this.#beat?.end();
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
    const view = this.#view!;
    if (!view.watching) await this.#bounded(view.watch(), 'watch').catch((err: unknown) => this.options.logger?.debug({ err }, 'lease watch not made again yet'));
    if (this.options.fit?.() === false) return this.#standDown();
    const heard = await this.#heartbeat();
    const now = Date.now();
    const lapsed: number[] = [];
    for (const [partition, held] of this.#held) {
      if (!held.releasing && now >= held.validUntil && this.#drop(partition, 'lapsed')) lapsed.push(partition);
    }
    this.#summarise('warn', 'lapsed (not renewed in time); no longer acting on them', lapsed, 'lapsed');
    // A node the others cannot hear has no view of who is live: it keeps what it holds and takes or hands over nothing.
    if (this.#stopped || !heard) return;
    const live = this.liveNodes();
    view.newRound();
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
      if (this.#releases.has(partition)) continue;
      const entry = view.owners.get(partition);
      const freeAt = view.freeAt(entry);
      if (freeAt > now) {
        this.#freeSince.delete(partition);
        // Held elsewhere: if its holder died, the lease is free at this time; look again then, not up to a renewal period later.
        expiring = Math.min(expiring, freeAt);
        continue;
      }
      const since = this.#freeSince.get(partition) ?? now;
      this.#freeSince.set(partition, since);
      // Another live node's to take: left to it for a TTL (it may be back from the same outage a moment
      // later), then taken all the same, so that a partition never waits on a node that cannot take it.
      if (preferred === this.nodeId || now - since >= this.#ttlMs) attempts.push(this.#acquire(partition, entry));
    }
    if (expiring - now < this.#renewMs) {
      clearTimeout(this.#wake);
      this.#wake = setTimeout(() => void this.tick(), Math.max(0, expiring - now) + 5);
      this.#wake.unref();
    }
    this.#checkShare(live, now);
    // One line per round and kind of change, not one per partition.
    if (releases.size > 0) void Promise.all(releases.values()).then(() => this.#summarise('info', 'handed over', [...releases.keys()], 'released'));
    const acquired = (await Promise.all(attempts)).filter((p) => p !== undefined);
    this.#summarise('info', 'acquired', acquired);
  }

  /**
   * Renews this node's heartbeat, which renews every lease it holds. A heartbeat that expired or was
   * ended cannot be renewed: every partition its entries named is lost, and a new incarnation starts.
   */
  async #heartbeat(): Promise<boolean> {
    const beat = this.#beat!;
    if (beat.incarnation === undefined) {
      const lost = [...this.#held].filter(([, h]) => !h.releasing).map(([p]) => p).filter((p) => this.#drop(p, 'lost'));
      this.#summarise('warn', "lost (this node's heartbeat expired or was ended); no longer acting on them", lost, 'lost');
    }
    const previous = beat.revision;
    const outcome = await beat.renew();
    if (outcome === 'ended') return (await this.#heartbeat(), false);
    if (outcome === 'failed') return false;
    this.#view!.checkEcho(previous);
    this.#heardAt = Date.now();
    this.#view!.heardSelf(this.#heardAt);
    for (const held of this.#held.values()) if (!held.releasing) held.validUntil = beat.sentAt + this.#ttlMs - this.#renewMs;
    return true;
  }

  /**
   * A node that cannot serve (its store does not answer) gives every partition up at once and ends its
   * heartbeat, so the others count it gone and take its partitions without waiting for the TTL; it
   * makes a new heartbeat, and takes its share again, once it can serve.
   */
  async #standDown(): Promise<void> {
    const held = [...this.#held].filter(([, h]) => !h.releasing).map(([p]) => p).filter((p) => this.#drop(p, 'lost'));
    this.#summarise('warn', 'given up (this node cannot serve them now)', held, 'lost');
    await this.#beat!.end();
  }

  /**
   * Readiness: what keeps this node from holding its share. Its heartbeat has not gone through for two
   * TTLs; or it holds none of the partitions preferred for it while others hold them, for two TTLs.
   */
  problems(): string[] {
    const now = Date.now();
    const problems: string[] = [];
    const silent = this.#heardAt === undefined ? undefined : now - this.#heardAt;
    if (silent === undefined || silent >= 2 * this.#ttlMs) problems.push(silent === undefined ? 'lease heartbeat never went through' : `lease heartbeat not through for ${silent} ms`);
    if (this.#starving !== undefined && now - this.#starving.since >= 2 * this.#ttlMs) problems.push(this.#starving.why);
    return problems;
  }

  /** Notes (and says, once) when this node holds none of its preferred share while live others hold it. */
  #checkShare(live: string[], now: number): void {
    const why = this.#held.size > 0 ? undefined : unservedShare(this.#view!, this.nodeId, this.partitions, live, now);
    if (why === undefined) return void (this.#starving = undefined);
    this.#starving ??= { since: now, why, said: false };
    this.#starving.why = why;
    if (!this.#starving.said && now - this.#starving.since >= 2 * this.#ttlMs) {
      this.#starving.said = true;
      this.options.logger?.warn({ node: this.nodeId, live }, `partitions: this node ${why} (their holders' view of the nodes may be stale)`);
    }
  }

  /** A partition entry changed: one held here, now another's (or deleted by another), is lost at once. */
  #entryChanged(partition: number, entry: OwnerEntry): void {
    const held = this.#held.get(partition);
    if (!held || held.releasing || entry.revision <= held.token) return;
    if (entry.node === this.nodeId && entry.incarnation === this.#beat?.incarnation) return;
    if (this.#drop(partition, 'lost')) this.#summarise('warn', 'lost (another node holds them); no longer acting on them', [partition], 'lost');
  }

  /** Logs one line for a round's partitions of one kind of change, e.g. `partitions acquired: 0-15,20 (17)`. */
  #summarise(level: 'info' | 'warn', what: string, partitions: readonly number[], reason?: LeaseEnd): void {
    if (partitions.length === 0) return;
    const ranges = partitionRanges(partitions);
    this.options.logger?.[level]({ node: this.nodeId, partitions: ranges, count: partitions.length, ...(reason ? { reason } : {}) }, `partitions ${what}: ${ranges} (${partitions.length})`);
  }

  /**
   * Takes a partition: one without an entry by `create` (only one node can), one whose owner is gone
   * by an update against the entry's revision, once the server confirms that the owner's heartbeat of
   * that incarnation is over (expired, ended, or renewed under another). Resolves with it when taken.
   */
  async #acquire(partition: number, entry: OwnerEntry | undefined): Promise<number | undefined> {
    const beat = this.#beat!;
    const incarnation = beat.incarnation;
    if (!incarnation) return undefined;
    let token: number;
    try {
      if (entry && entry.node !== null && entry.node !== this.nodeId && !(await this.#view!.ownerGone(entry))) return undefined;
      const value = ownerValue(this.nodeId, incarnation);
      const leases = this.#leases!;
      token = await this.#bounded(entry && entry.node !== null ? leases.update(key(partition), value, entry.revision) : leases.create(key(partition), value), 'acquisition');
    } catch (err) {
      // Changed meanwhile (another node took it): not free, so another node's grace starts again.
      if (isWrongSequence(err)) this.#freeSince.delete(partition);
      else this.options.logger?.debug({ err, partition }, 'lease acquisition failed');
      return undefined;
    }
    if (this.#stopped || beat.incarnation !== incarnation) {
      await this.#leases!.delete(key(partition), { previousSeq: token }).catch(() => undefined);
      return undefined;
    }
    this.#held.set(partition, { token, validUntil: beat.sentAt + this.#ttlMs - this.#renewMs, releasing: false });
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

  /** Stops acting, lets work drain, then deletes the entry so the preferred node takes it at once. */
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
   * beside the rounds. True when it was held (the caller logs the summary).
   */
  #drop(partition: number, reason: LeaseEnd): boolean {
    if (!this.#held.delete(partition)) return false;
    void Promise.resolve()
      .then(() => this.options.onReleased(partition, reason))
      .catch((err: unknown) => this.options.logger?.error({ err, node: this.nodeId, partition }, 'releasing a lost partition failed'));
    return true;
  }

  /**
   * A server restarted under the watches loses their consumers, and the client notices only after
   * missed heartbeats, seconds later: blind meanwhile, this node would see the others as gone. So the
   * watches are made anew on every reconnect (a new watch starts from each key's latest value); the
   * rounds make them again while that fails (JetStream still starting).
   */
  async #followReconnects(): Promise<void> {
    for await (const status of this.options.connection.status()) {
      if (status.type === 'reconnect' && !this.#stopped) {
        this.#view?.stop();
        void this.tick();
      }
    }
  }
}
