import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { selectAdapter } from '../../src/http/select-adapter.js';

// ABIs the pinned uWS package ships binaries for (Node 16, 18, 20).
const UWS_BUILT = new Set(['93', '108', '115']);
const uwsExpected = UWS_BUILT.has(process.versions.modules) && ['linux', 'darwin', 'win32'].includes(process.platform);

describe('HTTP adapter selection', () => {
  it('HTTP_ADAPTER=node takes node:http without probing uWS', async () => {
    const choice = await selectAdapter('node');
    assert.equal(choice.adapter.name, 'node');
    assert.equal(choice.reason, 'HTTP_ADAPTER=node');
  });

  it(`auto picks ${uwsExpected ? 'uWS (its build answered the probe)' : 'node:http and says why uWS cannot serve'} on Node ${process.version}`, async () => {
    const choice = await selectAdapter('auto');
    if (uwsExpected) {
      assert.equal(choice.adapter.name, 'uws');
      assert.match(choice.reason, /answered a probe request/);
    } else {
      assert.equal(choice.adapter.name, 'node');
      assert.match(choice.reason, /cannot serve on Node/);
    }
  });

  it('HTTP_ADAPTER=uws takes uWS where it serves and refuses to start where it does not', async () => {
    if (uwsExpected) assert.equal((await selectAdapter('uws')).adapter.name, 'uws');
    else await assert.rejects(selectAdapter('uws'), /HTTP_ADAPTER=uws, but uWebSockets\.js cannot serve/);
  });
});
