import type { Migration } from '../migrate.js';

/**
 * The fencing token of each partition's current tenure, written by the runtime node that takes the
 * partition before it serves it: a write that admits work (a send) commits only under the token its
 * node holds, so a node whose lease lapsed cannot add to an agent's usage after another took over.
 */
export const partitionFences: Migration = {
  version: 7,
  name: 'partition-fences',
  statements: [
    `CREATE TABLE partition_fences (
      partition INTEGER PRIMARY KEY,
      token BIGINT NOT NULL,
      node_id TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  ],
};
