import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../src/ids.js';

it('ids are prefixed, 120 random bits, and distinct across many pool refills', () => {
  const ids = Array.from({ length: 10_000 }, () => newId('msg'));
  for (const id of ids) assert.match(id, /^msg_[A-Za-z0-9_-]{20}$/);
  assert.equal(new Set(ids).size, ids.length);
});
