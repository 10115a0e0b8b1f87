export { describeBusConformance } from './bus-conformance.js';
export { startNatsServer, freePort, NATS_SERVER_BIN, type TestNatsServer } from './nats-server.js';
