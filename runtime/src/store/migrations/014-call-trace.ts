import type { Migration } from '../migrate.js';

/** The W3C trace context an agent placed a call with, so that every node's events and log lines of the call carry it. */
export const callTrace: Migration = {
  version: 14,
  name: 'call-trace',
  statements: ['ALTER TABLE calls ADD COLUMN traceparent TEXT'],
};
