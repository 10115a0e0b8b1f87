import type { Tenure } from '../tenure.js';

/** What one ask of the provider came to: its status event, or why there is none. */
export type Answer<E> = { readonly event: E } | { readonly none: string };

/** What the ask settled: a final status, still pending before the bound, or `unknown` at it. */
export type Settled = { readonly outcome: 'final' | 'pending' | 'unknown'; readonly status: string };

/** A message or a call whose provider stopped reporting before a final status, and how to settle it. */
export interface Unsettled<R extends { readonly status: string; readonly createdAt: string }, E extends { readonly status: string }> {
  readonly record: R;
  /** Milliseconds after the record's creation at which a status still not final becomes `unknown`. */
  readonly boundMs: number;
  readonly tenure: Tenure;
  ask(): Promise<Answer<E>>;
  isFinal(status: string): boolean;
  /** Applies `event` as the provider's report would be, only over the status of `read`. */
  apply(event: E, application: { readonly read: R; readonly reason?: string }): Promise<unknown>;
  /** The `unknown` status event. */
  readonly unknown: E;
  /** The reason when the provider still reports `status` at the bound (`bound` as `duration` reads it). */
  stillReported(status: string, bound: string): string;
}

/**
 * The reconciler's one step for a record, in its agent's actor (outside the mailbox): asks the provider,
 * applies a changed status over the one read (so a receipt that came meanwhile wins), and at the bound
 * records `unknown` with the reason.
 */
export async function settle<R extends { readonly status: string; readonly createdAt: string }, E extends { readonly status: string }>(
  unsettled: Unsettled<R, E>,
): Promise<Settled> {
  const { record } = unsettled;
  const answer = await unsettled.ask();
  unsettled.tenure.assert();
  const moved = 'event' in answer && answer.event.status !== record.status;
  if (moved) {
    await unsettled.apply(answer.event, { read: record });
    if (unsettled.isFinal(answer.event.status)) return { outcome: 'final', status: answer.event.status };
  }
  const status = 'event' in answer ? answer.event.status : record.status;
  if (Date.now() < Date.parse(record.createdAt) + unsettled.boundMs) return { outcome: 'pending', status };
  const reason = 'event' in answer ? unsettled.stillReported(status, duration(unsettled.boundMs)) : answer.none;
  // Over the status just applied, if any: the one stored now.
  await unsettled.apply(unsettled.unknown, { read: moved ? { ...record, status } : record, reason });
  return { outcome: 'unknown', status: 'unknown' };
}

/** `90 s`, `15 min`, `24 h`: how the bound reads in a reason. */
export function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}
