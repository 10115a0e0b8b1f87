import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

describe('admin UI pages are served locally with a strict CSP', () => {
  let t: TestGateway;
  before(async () => {
    t = await startTestGateway();
  });
  after(() => t.close());

  it('serves /admin/setup, /admin/dashboard and /admin/api-docs as HTML with a CSP and no CDN', async () => {
    for (const path of ['/admin/setup', '/admin/dashboard', '/admin/api-docs', '/admin/agents/someone', '/admin/agents/someone/conversations/cnv_x', '/admin/agents/someone/callbacks', '/admin/calls', '/admin/calls/CA1', '/admin/do-not-contact', '/admin/providers']) {
      const res = await t.call('GET', path);
      assert.equal(res.status, 200, `${path} (is the admin UI built? npm run build -w admin-ui)`);
      assert.match(res.headers.get('content-type')!, /^text\/html/);
      const csp = res.headers.get('content-security-policy')!;
      assert.match(csp, /default-src 'self'/);
      assert.match(csp, /script-src 'self';/);
      assert.ok(!csp.includes('unsafe-inline') && !csp.includes('unsafe-eval'));
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      const html = await res.text();
      assert.ok(!/https?:\/\//.test(html.replace(/xmlns="[^"]*"/g, '')), `${path} loads nothing from another origin`);
      for (const [, src] of html.matchAll(/(?:src|href)="(\/admin\/[^"]+)"/g)) {
        const asset = await t.call('GET', src!);
        assert.equal(asset.status, 200, src);
        await asset.arrayBuffer();
      }
    }
  });

  it('refuses path traversal and unknown assets', async () => {
    for (const path of ['/admin/assets/..%2F..%2Fpackage.json', '/admin/assets/nope.js', '/admin/assets/.hidden', '/admin/vendor/swagger-ui-bundle.js']) {
      assert.equal((await t.call('GET', path)).status, 404, path);
    }
  });

  it('keeps the OpenAPI document free of the page routes', async () => {
    const doc = await (await t.call('GET', '/api/v1/openapi.json')).json() as any;
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/admin/assets') || p === '/admin/setup'));
    for (const p of ['/admin/api/status', '/admin/api/dashboard', '/admin/api/save', '/admin/api/deploy', '/admin/api/session', '/admin/api/test/twilio']) {
      assert.ok(doc.paths[p], p);
    }
  });
});
