import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadSettings } from '@switchboard/runtime';
import { ResourceServer } from '../../src/oauth/resource-server.js';

const settings = (overrides: Record<string, string | number>) => loadSettings({ env: {}, overrides });

describe('ResourceServer settings', () => {
  it('is off without an authorization server', () => {
    assert.equal(ResourceServer.fromSettings(settings({})), undefined);
  });

  it('takes the resource URI from the public base URL, unless OAUTH_RESOURCE names one; the MCP endpoint adds /mcp', () => {
    const derived = ResourceServer.fromSettings(settings({ OAUTH_AUTHORIZATION_SERVERS: 'https://as.example' }))!;
    derived.useBaseUrl('https://gw.example:8443/ignored-path');
    assert.equal(derived.resource(), 'https://gw.example:8443');
    assert.equal(derived.metadata(true).resource, 'https://gw.example:8443/mcp');
    assert.equal(derived.metadataUrl('/mcp'), 'https://gw.example:8443/.well-known/oauth-protected-resource/mcp');
    assert.equal(derived.metadataUrl('/api/v1/send-message'), 'https://gw.example:8443/.well-known/oauth-protected-resource');
    const named = ResourceServer.fromSettings(settings({ OAUTH_AUTHORIZATION_SERVERS: 'https://as.example, https://as2.example', OAUTH_RESOURCE: 'https://api.example/' }))!;
    named.useBaseUrl('http://127.0.0.1:3000');
    assert.equal(named.resource(), 'https://api.example');
    assert.deepEqual(named.metadata().authorization_servers, ['https://as.example', 'https://as2.example']);
  });

  it('refuses an authorization server over plain http in production, loopback aside', () => {
    assert.throws(
      () => ResourceServer.fromSettings(settings({ NODE_ENV: 'production', OAUTH_AUTHORIZATION_SERVERS: 'http://as.example' })),
      (err: { code?: string; message: string }) => err.code === 'VALIDATION_FAILED' && /https/.test(err.message),
    );
    assert.ok(ResourceServer.fromSettings(settings({ NODE_ENV: 'production', OAUTH_AUTHORIZATION_SERVERS: 'http://127.0.0.1:9000' })));
    assert.ok(ResourceServer.fromSettings(settings({ NODE_ENV: 'development', OAUTH_AUTHORIZATION_SERVERS: 'http://as.example' })));
  });

  it('refuses malformed OAuth settings at load', () => {
    assert.throws(() => settings({ OAUTH_AUTHORIZATION_SERVERS: 'not a url' }), /OAUTH_AUTHORIZATION_SERVERS/);
    assert.throws(() => settings({ OAUTH_RESOURCE: 'https://gw.example/with/path' }), /OAUTH_RESOURCE/);
    assert.throws(() => settings({ OAUTH_CLOCK_SKEW_SECONDS: 3600 }), /OAUTH_CLOCK_SKEW_SECONDS/);
  });
});
