import { JetStreamApiError, jetstreamManager } from '@nats-io/jetstream';
import type { Kvm, KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../logger.js';
import { partitionRanges, preferredOwner } from './partitions.js';

/** A partition entry as last seen: who owns it (null: deleted), under which incarnation, at which revision. */
export interface OwnerEntry {
  node: string | null;
  incarnation: string | null;
  revision: number;
  /** Local time it was seen. */
  at: number;
}

/** A node's heartbeat as last seen: its incarnation and revision, and the local time it was heard. */
export interface Heartbeat {
  incarnation: string | null;
  revision: number;
  at: number;
}

/** The value of a partition entry: the owner node and the incarnation of its heartbeat. */
export function ownerValue(node: string, incarnation: string): string {
  return JSON.stringify({ node, incarnation });
}

export function parseOwner(value: string): { node: string | null; incarnation: string | null } {
  try {
    const parsed = JSON.parse(value) as { node?: string; incarnation?: string };
    return { node: parsed.node ?? null, incarnation: parsed.incarnation ?? null };
  } catch {
    return { node: null, incarnation: null };
  }
}

export function parseIncarnation(value: string): string | null {
  try {
    return (JSON.parse(value) as { incarnation?: string }).incarnation ?? null;
  } catch {
    return null;
  }
}

export function partitionKey(partition: number): string {
  return `p.${partition}`;
}

const WRONG_LAST_SEQUENCE = new Set([10071, 10164]);

/** The server refused a compare-and-set: the key is not at the revision the writer expected. */
export function isWrongSequence(err: unknown): boolean {
  return err instanceof JetStreamApiError && WRONG_LAST_SEQUENCE.has(err.code);
}

export interface LeaseViewOptions {
  nodeId: string;
  ttlMs: number;
  /** Bounds a KV call in time (see PartitionLeases). */
  bounded<T>(call: Promise<T>, what: string): Promise<T>;
  onEntry(partition: number, entry: OwnerEntry): void;
  logger?: Logger;
}

/**
 * What a node sees of the two buckets, from watches: each partition entry's owner and revision, each
 * node's last heartbeat, and so which nodes are live and when an entry held by another may be taken.
 * A view, not the truth: takeovers are checked against the server.
 */
export class LeaseView {
  readonly owners = new Map<number, OwnerEntry>();
  readonly heartbeats = new Map<string, Heartbeat>();
  readonly #watchers: { stop(): void }[] = [];
  /** When each node was last heard, local time. */
  readonly #live = new Map<string, number>();
  /** This round's checks on the server that an owner's heartbeat is over, by node and incarnation. */
  readonly #gone = new Map<string, Promise<boolean>>();
  readonly #ttlMs: number;
  /** The last incarnation of each node whose heartbeat was ended (deleted): its entries are free at once. */
  readonly #ended = new Map<string, string | null>();
  /** Rounds in a row whose watch had not shown this node's previous heartbeat. */
  #stale = 0;
  readonly logger: Logger | undefined;

  constructor(
    private readonly leases: KV,
    private readonly nodes: KV,
    private readonly options: LeaseViewOptions,
  ) {
    this.#ttlMs = options.ttlMs;
    this.logger = options.logger;
  }

  /** Nodes whose heartbeat was seen within the TTL, this one included. */
  liveNodes(): string[] {
    const now = Date.now();
    return [...this.#live].filter(([node, at]) => node === this.options.nodeId || now - at < this.#ttlMs).map(([node]) => node).sort();
  }

  /**
   * This node's heartbeat went through. After a silence of a TTL or more (NATS away, this process
   * paused), the others' silence meant nothing: the nodes live when it fell silent get a TTL to be
   * heard again before they count as gone, or every node back from a NATS restart would see itself
   * alone, take every free partition and hand most of them over again a moment later.
   */
  heardSelf(now: number): void {
    const last = this.#live.get(this.options.nodeId);
    if (last !== undefined && now - last >= this.#ttlMs) {
      for (const [node, at] of this.#live) if (last - at < this.#ttlMs) this.#live.set(node, now);
    }
    this.#live.set(this.options.nodeId, now);
  }

  /**
   * The watches must show this node its own heartbeats: one that has not shown the previous round's
   * (a period ago) for two rounds has stalled without ending, and is made again by the next round.
   */
  checkEcho(previous: number | undefined): void {
    const seen = this.heartbeats.get(this.options.nodeId)?.revision ?? 0;
    if (previous === undefined || seen >= previous) return void (this.#stale = 0);
    if (++this.#stale < 2) return;
    this.logger?.warn({ node: this.options.nodeId, seen, written: previous }, 'lease watches do not show this node its own heartbeat; making them again');
    this.#stale = 0;
    this.stop();
  }

  /** A node whose heartbeat was ended here: gone now, not when the watch says so. */
  forget(node: string): void {
    const beat = this.heartbeats.get(node);
    if (beat) this.#ended.set(node, beat.incarnation);
    this.heartbeats.delete(node);
    this.#live.delete(node);
  }

  /** Forgets the last round's checks on the server. */
  newRound(): void {
    this.#gone.clear();
  }

  /**
   * When a partition entry seen held by another may be taken: at once when deleted, or when it names
   * an incarnation known to be over (this node's, or a node heard since under another); else a TTL
   * after its owner was last heard (or the entry first seen, for an owner never heard).
   */
  freeAt(entry: OwnerEntry | undefined): number {
    if (!entry || entry.node === null || entry.node === this.options.nodeId) return 0;
    const beat = this.heartbeats.get(entry.node);
    if (beat && beat.incarnation !== entry.incarnation) return 0;
    if (!beat && this.#ended.has(entry.node) && this.#ended.get(entry.node) === entry.incarnation) return 0;
    return Math.max(entry.at, this.#live.get(entry.node) ?? 0) + this.#ttlMs;
  }

  /** True when the server holds no heartbeat of the entry's owner under the entry's incarnation. */
  ownerGone(entry: OwnerEntry): Promise<boolean> {
    const id = `${entry.node}/${entry.incarnation}`;
    let gone = this.#gone.get(id);
    if (!gone) {
      gone = this.options.bounded(this.nodes.get(entry.node!), 'heartbeat read').then((beat) => {
        if (!beat || beat.operation !== 'PUT' || parseIncarnation(beat.string()) !== entry.incarnation) return true;
        // Still there (this view lagged, or the server expires it a moment later): looked at again when it would expire.
        this.#live.set(entry.node!, Math.min(Date.now(), beat.created.getTime()));
        return false;
      });
      this.#gone.set(id, gone);
    }
    return gone;
  }

  get watching(): boolean {
    return this.#watchers.length > 0;
  }

  stop(): void {
    for (const w of this.#watchers.splice(0)) w.stop();
  }

  async watch(): Promise<void> {
    const leases = await this.leases.watch({ key: 'p.>' });
    const nodes = await this.nodes.watch().catch((err: unknown) => {
      leases.stop();
      throw err;
    });
    this.stop();
    this.#watchers.push(leases, nodes);
    // A watch that ends by itself (its consumer lost, an error) is made again by the next round: a view
    // frozen on an old state would never see a node join, and hold partitions that node should have.
    const ended = (what: string) => (err?: unknown) => {
      if (!this.#watchers.includes(leases)) return;
      this.logger?.warn({ err }, `${what} watch ended; making it again`);
      this.stop();
    };
    void (async () => {
      for await (const entry of leases) {
        const partition = Number(entry.key.slice(2));
        const owner = entry.operation === 'PUT' ? parseOwner(entry.string()) : { node: null, incarnation: null };
        const seen = { ...owner, revision: entry.revision, at: Date.now() };
        this.owners.set(partition, seen);
        this.options.onEntry(partition, seen);
      }
    })().then(ended('lease'), ended('lease'));
    void (async () => {
      for await (const entry of nodes) {
        if (entry.operation === 'PUT') {
          this.heartbeats.set(entry.key, { incarnation: parseIncarnation(entry.string()), revision: entry.revision, at: Date.now() });
          // This node counts as heard only when its own renewal is answered (see heardSelf).
          if (entry.key !== this.options.nodeId) this.#live.set(entry.key, Date.now());
        } else {
          // A node that stopped deleted its heartbeat (or a peer ended it): gone at once, not a TTL later.
          if (entry.key !== this.options.nodeId) this.forget(entry.key);
        }
      }
    })().then(ended('node'), ended('node'));
  }
}

/**
 * Why a node holding nothing does not hold its share: the partitions rendezvous hashing prefers it for
 * are held by live others (who should hand them over); undefined when that is not so.
 */
export function unservedShare(view: LeaseView, nodeId: string, partitions: number, live: string[], now: number): string | undefined {
  const mine = Array.from({ length: partitions }, (_, p) => p).filter((p) => preferredOwner(p, live) === nodeId);
  const elsewhere = mine.filter((p) => view.freeAt(view.owners.get(p)) > now);
  if (mine.length === 0 || elsewhere.length === 0) return undefined;
  return `holds none of the ${mine.length} partitions preferred for it; others hold ${partitionRanges(elsewhere)} and do not hand them over`;
}

/** Opens (or creates) the bucket of partition entries: no TTL, since an entry lives as long as its owner's heartbeat. */
export async function openPartitionBucket(connection: NatsConnection, kvm: Kvm, name: string, replicas: number, logger?: Logger): Promise<KV> {
  let kv: KV;
  try {
    kv = await kvm.create(name, { history: 1, replicas });
  } catch {
    kv = await kvm.open(name);
  }
  if ((await kv.status()).ttl > 0) {
    // A bucket of an earlier version, whose entries expired unless renewed one by one: they live on now.
    logger?.warn({ bucket: name }, 'lease bucket had a TTL (an earlier version); removing it');
    const jsm = await jetstreamManager(connection);
    await jsm.streams.update(`KV_${name}`, { max_age: 0 });
  }
  return kv;
}

/** Opens (or creates) the bucket of heartbeats, whose TTL is the lease TTL. */
export async function openHeartbeatBucket(kvm: Kvm, name: string, ttlMs: number, replicas: number): Promise<KV> {
  try {
    return await kvm.create(name, { ttl: ttlMs, history: 1, replicas });
  } catch {
    return kvm.open(name);
  }
}
