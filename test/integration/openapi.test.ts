import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { mcpRouteDocs } from '@switchboard/gateway';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

describe('OpenAPI document', () => {
  let t: TestGateway;
  let doc: { openapi: string; paths: Record<string, Record<string, { security?: unknown[] }>> };
  before(async () => {
    t = await startTestGateway();
    doc = (await (await t.call('GET', '/api/v1/openapi.json')).json()) as typeof doc;
  });
  after(() => t.close());

  it('passes a real OpenAPI 3.1 validator', async () => {
    assert.equal(doc.openapi, '3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  it('lists exactly the registered routes, and every route in it exists', async () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const registered = [...t.gateway.app.routes, ...mcpRouteDocs].filter((r) => !r.hidden).map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    assert.deepEqual(documented.sort(), registered.sort());
    for (const entry of documented) {
      const [method, template] = entry.split(' ') as [string, string];
      const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'pool' ? 'phone' : 'probe-agent'));
      const controller = new AbortController();
      const res = await fetch(`${t.url}${path}`, { method, headers: { authorization: `Bearer ${t.orchestratorToken}` }, signal: controller.signal });
      const streaming = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
      if (streaming) controller.abort();
      const body = streaming ? '{}' : (await res.text()) || '{}';
      assert.notEqual(res.status, 405, `${entry} answers 405`);
      if (res.status === 404) assert.ok(!String(JSON.parse(body).error).startsWith('No route'), `${entry} is not served`);
    }
  });

  it('documents the request schema that validates the route', async () => {
    const provision = doc.paths['/api/v1/provision']!.post as unknown as {
      requestBody: { content: { 'application/json': { schema: { required: string[] } } } };
      security: unknown[];
    };
    assert.deepEqual(provision.requestBody.content['application/json'].schema.required.sort(), ['channels', 'displayName']);
    assert.deepEqual(provision.security, [{ bearer: [] }]);
    assert.equal(doc.paths['/health']!.get!.security, undefined);
  });
});
