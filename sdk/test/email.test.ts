import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bareAddress } from '../src/index.js';

describe('bareAddress', () => {
  it('keeps the address of a named mailbox, and a bare address as it is', () => {
    assert.equal(bareAddress('Pat <pat@example.com>'), 'pat@example.com');
    assert.equal(bareAddress('"Doe, Jane" <jane@example.com> '), 'jane@example.com');
    assert.equal(bareAddress(' pat@example.com '), 'pat@example.com');
  });
});
