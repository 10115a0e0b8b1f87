import { after, before } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { KvCallDirectory } from '../src/voice/kv-call-directory.js';
import { describeCallDirectoryConformance } from '../src/testing/index.js';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';
import { MemoryCallDirectory } from '../src/voice/call-directory.js';

let server: TestNatsServer;
before(async () => {
  server = await startNatsServer();
});
after(async () => {
  await server.stop();
});

describeCallDirectoryConformance('in memory', async () => {
  const directory = new MemoryCallDirectory();
  return { writer: directory, reader: directory, close: async () => undefined };
});

// A runtime node admitting calls and a gateway taking their media, each on its own connection to JetStream KV.
describeCallDirectoryConformance('JetStream KV', async () => {
  const node = await connect({ servers: server.url, name: 'conf-node' });
  const gateway = await connect({ servers: server.url, name: 'conf-gateway' });
  return {
    writer: await KvCallDirectory.open(node, 60_000),
    reader: await KvCallDirectory.open(gateway, 60_000),
    close: async () => {
      await node.close();
      await gateway.close();
    },
  };
});
