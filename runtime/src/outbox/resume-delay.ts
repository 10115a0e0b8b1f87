/**
 * How long after it was stored another node may finish a send: its node has lost the agent by then if
 * it died (two lease TTLs), and a node that lost the agent makes no further attempt while the one it
 * had started ends within the send time-out.
 */
export function resumeAfterMs(leaseTtlMs: number, sendTimeoutMs: number): number {
  return Math.max(2 * leaseTtlMs, sendTimeoutMs + leaseTtlMs);
}
