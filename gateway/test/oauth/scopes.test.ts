import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { grants, scopeFor, scopeOf, scopesOf, SCOPES_SUPPORTED } from '../../src/oauth/scopes.js';
import { challengeOf } from '../../src/oauth/bearer-refusal.js';

describe('OAuth scope grammar', () => {
  it('lets a scope grant itself and its narrower forms, never a sibling or a broader one', () => {
    assert.equal(grants(['switchboard:send'], 'switchboard:send:sms'), true);
    assert.equal(grants(['switchboard:send:sms'], 'switchboard:send:sms'), true);
    assert.equal(grants(['switchboard:send:email'], 'switchboard:send:sms'), false);
    assert.equal(grants(['switchboard:send:sms'], 'switchboard:send'), false);
    assert.equal(grants(['switchboard:sen'], 'switchboard:send'), false, 'a prefix that is not a whole scope grants nothing');
    assert.equal(grants(['switchboard:read'], 'switchboard:call'), false);
    assert.equal(grants([], 'switchboard:read'), false);
  });

  it('names the narrowest scope a request needs, and lists every scope it understands', () => {
    assert.equal(scopeFor('send', 'whatsapp'), 'switchboard:send:whatsapp');
    assert.equal(scopeFor('call'), 'switchboard:call');
    assert.equal(scopeOf('send', { channel: 'sms', to: '+14155550123' }), 'switchboard:send:sms');
    assert.equal(scopeOf('read', { channel: 'sms' }), 'switchboard:read', 'only send is per channel');
    assert.equal(scopeOf('send', {}), 'switchboard:send');
    // The scope is checked before the input is validated: a channel that is not one names no scope.
    assert.equal(scopeOf('send', { channel: 'fax' }), 'switchboard:send');
    assert.equal(scopeOf('send', { channel: 'voice' }), 'switchboard:send');
    assert.equal(scopeOf('send', { channel: 42 }), 'switchboard:send');
    assert.ok(SCOPES_SUPPORTED.includes('switchboard:send:line'));
    assert.ok(!SCOPES_SUPPORTED.includes('switchboard:send:voice'), 'voice is switchboard:call');
  });

  it('reads scopes from the scope claim (RFC 9068) or a scp array', () => {
    assert.deepEqual(scopesOf({ scope: 'switchboard:read  switchboard:call' }), ['switchboard:read', 'switchboard:call']);
    assert.deepEqual(scopesOf({ scp: ['switchboard:read', 7] }), ['switchboard:read']);
    assert.deepEqual(scopesOf({}), []);
  });

  it('writes challenges with quoted parameters and no quote or line break from a description', () => {
    assert.equal(
      challengeOf({ error: 'insufficient_scope', scope: 'switchboard:send:sms' }, 'https://gw.example/.well-known/oauth-protected-resource', 'needs "more"\r\n'),
      'Bearer realm="switchboard", resource_metadata="https://gw.example/.well-known/oauth-protected-resource", error="insufficient_scope", scope="switchboard:send:sms", error_description="needs more"',
    );
    assert.equal(challengeOf({}, undefined, 'ignored without an error'), 'Bearer realm="switchboard"');
  });
});
