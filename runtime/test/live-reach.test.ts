import { after, before } from 'node:test';
import { LocalLiveReach, NatsLiveReach } from '../src/agents/live-reach.js';
import { NatsBus } from '../src/bus/nats-bus.js';
import { describeLiveReachConformance } from '../src/testing/index.js';
import { startNatsServer, type TestNatsServer } from '../src/testing/nats-server.js';

let server: TestNatsServer;
before(async () => {
  server = await startNatsServer();
});
after(async () => {
  await server.stop();
});

describeLiveReachConformance('in process', async () => {
  const reach = new LocalLiveReach();
  return { server: reach, reacher: reach, close: async () => undefined };
});

// A gateway holding the sessions and a runtime node reaching them, each on its own connection.
describeLiveReachConformance('over NATS', async () => {
  const gateway = await NatsBus.connect({ servers: server.url, name: 'conf-gateway' });
  const node = await NatsBus.connect({ servers: server.url, name: 'conf-node' });
  return {
    server: new NatsLiveReach(gateway),
    reacher: new NatsLiveReach(node),
    close: async () => {
      await gateway.close();
      await node.close();
    },
  };
});
