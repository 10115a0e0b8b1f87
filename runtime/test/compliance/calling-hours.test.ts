import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callingWindow } from '../../src/compliance/calling-hours.js';
import { ALL_PARTY_RECORDING_STATES, DEFAULT_RULES, rulesFor, type ContactRules } from '../../src/compliance/contact-rules.js';
import { RecipientPlaces } from '../../src/compliance/recipient-place.js';

const at = (iso: string) => new Date(iso);
const opensAt = (window: ReturnType<typeof callingWindow>) => (window.open ? 'open' : window.opensAt?.toISOString());

describe('calling hours in the recipient\'s time', () => {
  it('8:00–21:00 in New York: 22:30 local is refused until 8:00 the next morning, noon is open', () => {
    assert.equal(opensAt(callingWindow(at('2026-11-25T03:30:00Z'), ['America/New_York'], rulesFor('US'))), '2026-11-25T13:00:00.000Z');
    assert.equal(opensAt(callingWindow(at('2026-11-25T17:00:00Z'), ['America/New_York'], rulesFor('US'))), 'open');
    assert.equal(opensAt(callingWindow(at('2026-11-25T02:00:00Z'), ['America/New_York'], rulesFor('US'))), '2026-11-25T13:00:00.000Z', '20:59 is open, 21:00 is not');
    assert.equal(opensAt(callingWindow(at('2026-11-25T01:59:59Z'), ['America/New_York'], rulesFor('US'))), 'open');
  });

  it('a number that spans several zones gets the strictest: the hours all of them allow', () => {
    // 8:30 in New York is 5:30 in Los Angeles: closed until 8:00 there (11:00 in New York).
    assert.equal(opensAt(callingWindow(at('2026-11-25T13:30:00Z'), ['America/New_York', 'America/Los_Angeles'], DEFAULT_RULES)), '2026-11-25T16:00:00.000Z');
    // 20:30 in New York is 17:30 in Los Angeles: New York closes first, and both are next open at 8:00 in Los Angeles.
    assert.equal(opensAt(callingWindow(at('2026-11-26T01:30:00Z'), ['America/New_York', 'America/Los_Angeles'], DEFAULT_RULES)), 'open');
    assert.equal(opensAt(callingWindow(at('2026-11-26T02:30:00Z'), ['America/New_York', 'America/Los_Angeles'], DEFAULT_RULES)), '2026-11-26T16:00:00.000Z');
  });

  it('country rules: France\'s lunch break and weekends, Australia\'s Sunday, Canada\'s weekend hours', () => {
    assert.equal(opensAt(callingWindow(at('2026-11-25T12:30:00Z'), ['Europe/Paris'], rulesFor('FR'))), '2026-11-25T13:00:00.000Z', '13:30 Paris waits for 14:00');
    assert.equal(opensAt(callingWindow(at('2026-11-28T10:00:00Z'), ['Europe/Paris'], rulesFor('FR'))), '2026-11-30T09:00:00.000Z', 'Saturday waits for Monday 10:00');
    assert.equal(opensAt(callingWindow(at('2026-11-29T01:00:00Z'), ['Australia/Sydney'], rulesFor('AU'))), '2026-11-29T22:00:00.000Z', 'Sunday noon waits for Monday 9:00');
    assert.equal(opensAt(callingWindow(at('2026-11-28T14:30:00Z'), ['America/Toronto'], rulesFor('CA'))), '2026-11-28T15:00:00.000Z', 'Saturday 9:30 waits for 10:00');
  });

  it('follows daylight saving time: the day clocks go forward, 8:00 local is 12:00 UTC', () => {
    assert.equal(opensAt(callingWindow(at('2026-03-08T10:00:00Z'), ['America/New_York'], DEFAULT_RULES)), '2026-03-08T12:00:00.000Z');
    assert.equal(opensAt(callingWindow(at('2026-03-07T10:00:00Z'), ['America/New_York'], DEFAULT_RULES)), '2026-03-07T13:00:00.000Z');
  });

  it('rules that allow no hour never open; an operator\'s rules replace a country\'s', () => {
    const never: ContactRules = { ...DEFAULT_RULES, hours: { 1: [], 2: [], 3: [], 4: [], 5: [], 6: [], 7: [] } };
    assert.deepEqual(callingWindow(at('2026-11-25T17:00:00Z'), ['America/New_York'], never), { open: false, opensAt: undefined });
    assert.equal(rulesFor('US', { US: never }), never);
    assert.equal(rulesFor('ZZ'), DEFAULT_RULES);
    assert.equal(rulesFor(undefined), DEFAULT_RULES);
  });
});

describe('where a number rings', () => {
  const places = new RecipientPlaces();

  it('places a number by its plan: region, zone and state', async () => {
    assert.deepEqual(await places.of('+14155550100'), { region: 'US', zones: ['America/Los_Angeles'], subdivision: 'CA' });
    assert.equal((await places.of('+12155550100')).subdivision, 'PA', 'a geocode that names the state in full');
    assert.deepEqual((await places.of('+33142685300')).zones, ['Europe/Paris']);
    assert.ok(ALL_PARTY_RECORDING_STATES.has('CA') && !ALL_PARTY_RECORDING_STATES.has('NY'));
  });

  it('a toll-free number rings anywhere in its plan: every zone, so the strictest hours', async () => {
    const place = await places.of('+18005550100');
    assert.ok(place.zones.includes('America/New_York') && place.zones.includes('Pacific/Honolulu'));
    assert.equal(opensAt(callingWindow(at('2026-11-25T17:00:00Z'), place.zones, rulesFor(place.region))), '2026-11-25T22:00:00.000Z', 'noon in New York is 7:00 in Honolulu and 3:00 in Guam');
  });

  it('a number the data cannot parse is held to the world\'s strictest hours', async () => {
    const place = await places.of('+999');
    assert.equal(place.region, undefined);
    assert.ok(place.zones.length >= 2);
  });
});
