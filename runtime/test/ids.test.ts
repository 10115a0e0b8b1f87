import assert from 'node:assert/strict';
import { it } from 'node:test';
import { decodeTime } from 'ulid';
import { newId, newSecretId } from '../src/ids.js';
import { newSessionId } from '../src/voice/call-session.js';

it('record ids are prefixed ULIDs, distinct, and sort in the order they were made', () => {
  const before = Date.now();
  const ids = Array.from({ length: 10_000 }, () => newId('msg'));
  for (const id of ids) assert.match(id, /^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids, 'ids made one after another sort in that order, within a millisecond too');
  const time = decodeTime(ids[0]!.slice(4));
  assert.ok(time >= before && time <= Date.now());
});

it('secret ids (capabilities) carry a time prefix and 128 fresh random bits', () => {
  const ids = Array.from({ length: 2_000 }, () => newSecretId('ses'));
  for (const id of ids) assert.match(id, /^ses_[0-9A-HJKMNP-TV-Z]{10}[A-Za-z0-9_-]{22}$/);
  assert.equal(new Set(ids).size, ids.length);
  // Ids made in the same millisecond share no random part: one tells nothing of the next.
  const tails = new Set(ids.map((id) => id.slice(14, 20)));
  assert.equal(tails.size, ids.length);
  assert.ok(decodeTime(ids[0]!.slice(4, 14) + '0'.repeat(16)) <= Date.now());
  assert.match(newSessionId(), /^ses_[0-9A-HJKMNP-TV-Z]{10}[A-Za-z0-9_-]{22}$/);
});
