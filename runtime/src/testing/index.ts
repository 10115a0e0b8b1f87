export { describeBusConformance } from './bus-conformance.js';
export { describeDatabaseConformance } from './database-conformance.js';
export type { DatabaseUnderTest } from './database-conformance.js';
export { createTestDatabase, TEST_POSTGRES_SERVER } from './postgres.js';
export type { TestDatabase } from './postgres.js';
export { startNatsServer, freePort, NATS_SERVER_BIN, type TestNatsServer } from './nats-server.js';
export { describeWorkQueueConformance, type WorkQueueUnderTest } from './work-queue-conformance.js';
