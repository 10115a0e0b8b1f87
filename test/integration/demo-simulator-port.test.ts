// Demo mode's simulator listens on SIMULATOR_PORT at every start, so the SIM= a reader noted from the
// README stays good; when the port is taken it moves, and the banner says so.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from '@switchboard/runtime/testing';
import { startServerProcess } from '../helpers/process.js';

describe('demo mode: the simulator port', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-sim-port-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is SIMULATOR_PORT at each start, and a taken one moves with the banner saying so', async () => {
    const port = await freePort();
    const env = { DEMO_MODE: 'true', SIMULATOR_PORT: String(port) };
    for (const start of ['first', 'second']) {
      const server = await startServerProcess(['--data-dir', dataDir], env);
      try {
        assert.match(server.output(), new RegExp(`Simulator: http://127\\.0\\.0\\.1:${port}/_sim  \\(demo providers; `), `${start} start:\n${server.output()}`);
        const sim = await fetch(`http://127.0.0.1:${port}/_sim/messages?provider=twilio`);
        assert.equal(sim.status, 200);
      } finally {
        assert.equal(await server.stop(), 0);
      }
    }

    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
    try {
      assert.equal((taken.address() as AddressInfo).port, port);
      const server = await startServerProcess(['--data-dir', dataDir], env);
      try {
        const url = /Simulator: (\S+)\/_sim/.exec(server.output())?.[1];
        assert.ok(url && url !== `http://127.0.0.1:${port}`, server.output());
        assert.match(server.output(), new RegExp(`port ${port} \\(SIMULATOR_PORT\\) was taken`), server.output());
        assert.equal((await fetch(`${url}/_sim/messages?provider=twilio`)).status, 200, 'the simulator serves on the port it moved to');
      } finally {
        assert.equal(await server.stop(), 0);
      }
    } finally {
      taken.close();
    }
  });
});
