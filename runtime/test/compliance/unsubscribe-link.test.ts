import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { unsubscribeHeaders, unsubscribeSubject, unsubscribeToken, verifiedAddress } from '../../src/compliance/unsubscribe-link.js';
import { SecretBox } from '../../src/secrets.js';

const box = new SecretBox(randomBytes(32));
const agent = { agentId: 'mailer', createdAt: '2026-11-01T10:00:00.000Z' };

describe('one-click unsubscribe links', () => {
  it('name the agent and address, and prove them only to the key that made them, for the agent incarnation they were made for', () => {
    const token = unsubscribeToken(box, agent, 'reader@example.com');
    assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(unsubscribeSubject(token), { agentId: 'mailer', address: 'reader@example.com' });
    assert.equal(verifiedAddress(box, agent, token), 'reader@example.com');
    assert.equal(verifiedAddress(new SecretBox(randomBytes(32)), agent, token), undefined, 'another key');
    assert.equal(verifiedAddress(box, { ...agent, createdAt: '2026-11-02T10:00:00.000Z' }, token), undefined, 'the agent deleted and created again');
    assert.equal(verifiedAddress(box, { ...agent, agentId: 'other' }, token), undefined, 'another agent');
  });

  it('refuse an altered subject or code, and anything not of their shape', () => {
    const token = unsubscribeToken(box, agent, 'reader@example.com');
    const [, code] = token.split('.');
    const swapped = `${Buffer.from(JSON.stringify(['mailer', 'someone@example.com'])).toString('base64url')}.${code}`;
    assert.equal(verifiedAddress(box, agent, swapped), undefined);
    assert.equal(verifiedAddress(box, agent, `${token.slice(0, -2)}AA`), undefined);
    assert.equal(verifiedAddress(box, agent, `${token}.x`), undefined);
    for (const bad of ['', 'abc', 'abc.def', `${Buffer.from('{"a":1}').toString('base64url')}.x`, `${Buffer.from('[1,2]').toString('base64url')}.x`]) assert.equal(unsubscribeSubject(bad), undefined, bad);
  });

  it('go in List-Unsubscribe with List-Unsubscribe-Post (RFC 8058)', () => {
    assert.deepEqual(unsubscribeHeaders('https://comms.example.com', 'tok.en'), {
      'List-Unsubscribe': '<https://comms.example.com/unsubscribe/tok.en>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
  });
});
