// test/bench/load.ts: a row's warm-up goes on until it has had the answers the row asks for.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { runLoad } from '../bench/load.js';

describe('the load warm-up', () => {
  let server: Server;
  let url = '';
  let answered = 0;
  before(async () => {
    // One answer every 20 ms per connection: about 50 answers a second on one connection.
    server = createServer((_req, res) => void setTimeout(() => (answered++, res.end('ok')), 20));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('runs more rounds of the warm-up until the answers asked for came, before the window', async () => {
    answered = 0;
    let beforeWindow = -1;
    // One 1 s round gives ~50 answers; 120 need two more rounds.
    await runLoad({ label: 'warm-up test', url, connections: 1, warmupResponses: 120, beforeWindow: () => void (beforeWindow = answered) }, { warmupSeconds: 1, durationSeconds: 1, connections: 1 });
    assert.ok(beforeWindow >= 120, `the window opened after ${beforeWindow} warm-up answers`);
    assert.ok(answered > beforeWindow, 'the measured run answered too');
  });

  it('keeps to the warm-up seconds when no answers are asked for', async () => {
    answered = 0;
    let beforeWindow = -1;
    await runLoad({ label: 'warm-up test', url, connections: 1, beforeWindow: () => void (beforeWindow = answered) }, { warmupSeconds: 1, durationSeconds: 1, connections: 1 });
    assert.ok(beforeWindow > 0 && beforeWindow < 120, `one round of warm-up gave ${beforeWindow} answers`);
  });
});
