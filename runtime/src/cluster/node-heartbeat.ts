import { randomBytes } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import { isWrongSequence, parseIncarnation } from './lease-view.js';

/** What a renewal found: it went through; it failed (the server did not answer); or the heartbeat is over. */
export type BeatOutcome = 'renewed' | 'failed' | 'ended';

/**
 * A node's heartbeat, key = node id in the heartbeat bucket (entries expire after the lease TTL). Made
 * under a new incarnation, then renewed by a compare-and-set on the revision it last wrote, so one
 * that expired or was ended is never renewed: its incarnation, and every lease naming it, is over.
 */
export class NodeHeartbeat {
  #current: { incarnation: string; revision: number } | undefined;
  /** When the last renewal that went through was sent. */
  sentAt = 0;

  constructor(
    private readonly nodes: KV,
    private readonly nodeId: string,
    private readonly bounded: <T>(call: Promise<T>, what: string) => Promise<T>,
  ) {}

  /** The incarnation partition entries must name; undefined until a heartbeat is made. */
  get incarnation(): string | undefined {
    return this.#current?.incarnation;
  }

  /** The revision last written; undefined until a heartbeat is made. */
  get revision(): number | undefined {
    return this.#current?.revision;
  }

  /** Renews the heartbeat, or makes it under a new incarnation when there is none. */
  async renew(): Promise<BeatOutcome> {
    const sentAt = Date.now();
    const current = this.#current;
    try {
      if (current === undefined) {
        const incarnation = randomBytes(6).toString('hex');
        const revision = await this.bounded(this.nodes.create(this.nodeId, JSON.stringify({ incarnation })), 'heartbeat');
        this.#current = { incarnation, revision };
      } else {
        current.revision = await this.bounded(this.nodes.update(this.nodeId, JSON.stringify({ incarnation: current.incarnation }), current.revision), 'heartbeat');
      }
    } catch (err) {
      // A create refused: the heartbeat of an earlier process with this id has not expired yet.
      if (!isWrongSequence(err) || current === undefined) return 'failed';
      return this.#refused(current);
    }
    this.sentAt = sentAt;
    return 'renewed';
  }

  /**
   * The compare-and-set was refused. Our own renewal may have gone through unanswered (a time-out):
   * then the key still holds our incarnation and its revision is adopted. Otherwise it expired or was ended.
   */
  async #refused(current: { incarnation: string; revision: number }): Promise<BeatOutcome> {
    const entry = await this.bounded(this.nodes.get(this.nodeId), 'heartbeat read').catch(() => undefined);
    if (entry === undefined) return 'failed';
    if (entry && entry.operation === 'PUT' && parseIncarnation(entry.string()) === current.incarnation) {
      current.revision = entry.revision;
      return 'failed';
    }
    this.#current = undefined;
    return 'ended';
  }

  /** Ends the heartbeat (a node that stops), so the others count this node gone at once. */
  async end(): Promise<void> {
    if (this.#current) await this.nodes.delete(this.nodeId, { previousSeq: this.#current.revision }).catch(() => undefined);
    this.#current = undefined;
  }
}
