/** Partitions agents are spread over; every node and every caller of a cluster must agree on it. */
export const DEFAULT_PARTITIONS = 32;

/** FNV-1a, 32 bits: stable across processes, versions and platforms (unlike any runtime's own hash). */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The partition an agent belongs to: every operation on it goes to the node owning this partition. */
export function partitionOf(agentId: string, partitions = DEFAULT_PARTITIONS): number {
  return fnv1a(agentId) % partitions;
}

/**
 * The node that should own a partition among the live ones (rendezvous hashing): each partition
 * moves only when its own preferred node comes or goes, and shares stay even without a coordinator.
 */
export function preferredOwner(partition: number, nodes: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const node of nodes) {
    const score = mix32(fnv1a(`${node}/${partition}`));
    if (score > bestScore || (score === bestScore && best !== undefined && node < best)) {
      best = node;
      bestScore = score;
    }
  }
  return best;
}

/** MurmurHash3's finaliser: FNV alone spreads near-identical keys poorly. */
function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Partitions as ranges for a log line: `[0, 1, 2, 5, 7, 8]` → `0-2,5,7-8`. */
export function partitionRanges(partitions: Iterable<number>): string {
  const sorted = [...new Set(partitions)].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    ranges.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return ranges.join(',');
}
