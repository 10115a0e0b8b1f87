import { after, before } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';
import { describeWorkQueueConformance } from '../src/testing/work-queue-conformance.js';
import { InProcessWorkQueue } from '../src/work/in-process-work-queue.js';
import { JetStreamWorkQueue } from '../src/work/jetstream-work-queue.js';

describeWorkQueueConformance('in-process', { create: async () => new InProcessWorkQueue() });

let server: TestNatsServer;
let connection: NatsConnection;
before(async () => {
  server = await startNatsServer();
  connection = await connect({ servers: server.url, name: 'work-queue-conformance' });
});
after(async () => {
  await connection.close();
  await server.stop();
});
let streams = 0;
describeWorkQueueConformance('JetStream', {
  create: async () => {
    const stream = `CONF${++streams}`;
    return new JetStreamWorkQueue({ connection, stream, subjectPrefix: `sbconf.${stream}` });
  },
});
