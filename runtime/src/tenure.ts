import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';

/**
 * What the store keeps of a partition's tenure: the partition and the lease revision (fencing token)
 * it was taken with. A write fenced by it takes effect only while it is the partition's current one.
 */
export interface TenureRecord {
  readonly partition: number;
  readonly token: number;
}

/**
 * The one thing an operation knows about ownership: whether this process may still act for an agent
 * (embedded: always; a cluster node: while it holds the lease of the agent's partition), and the
 * record that fences its writes in the store against a node that took the partition over since.
 */
export interface Tenure {
  /** True while this process may act: check it before acting, every time. */
  holds(): boolean;
  /** Throws UNAVAILABLE (retryable) unless {@link holds}; call it before an effect that runs outside the mailbox. */
  assert(): void;
  /** What a fenced write carries to the store; undefined when writes need no fence (embedded). */
  readonly fence: TenureRecord | undefined;
}

/** The tenure of embedded mode: one process, which always may act, and writes that need no fence. */
export const ALWAYS: Tenure = Object.freeze({
  holds: () => true,
  assert: () => undefined,
  fence: undefined,
});

/** The error of a tenure that no longer holds: callers retry and reach the process that holds it now. */
export function tenureLost(what: string): SwitchboardError {
  return new SwitchboardError(ErrorCodes.UNAVAILABLE, `${what}; retry.`, { retryable: true });
}
