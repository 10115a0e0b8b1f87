import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecipientPlaces } from '../../src/compliance/recipient-place.js';
import { RecordingConsent, parseAnnouncements } from '../../src/compliance/recording-consent.js';

describe('RecordingConsent', () => {
  const consent = new RecordingConsent(new RecipientPlaces(), parseAnnouncements('en=Calls are recorded for quality.|it=La chiamata è registrata.|broken entry'));

  it('announces where every party must consent: all-party US states and countries, not one-party places', async () => {
    assert.equal(await consent.announcementFor('+14155550100', 'en-US'), 'Calls are recorded for quality.'); // San Francisco, CA
    assert.equal(await consent.announcementFor('+13125550100', 'en-US'), 'Calls are recorded for quality.'); // Chicago, IL
    assert.equal(await consent.announcementFor('+61291234567', 'en-AU'), 'Calls are recorded for quality.'); // Sydney
    assert.equal(await consent.announcementFor('+4930123456', 'de-DE'), 'Dieses Gespräch wird aufgezeichnet.'); // Berlin, built-in wording
    assert.equal(await consent.announcementFor('+12125550100', 'en-US'), undefined); // New York: one party
    assert.equal(await consent.announcementFor('+442071234567', 'en-GB'), undefined); // London: no rule here
  });

  it("picks the call's language, else its base language, else English; a malformed entry is ignored", () => {
    assert.equal(consent.wordingFor('it-IT'), 'La chiamata è registrata.');
    assert.equal(consent.wordingFor('de-AT'), 'Dieses Gespräch wird aufgezeichnet.');
    assert.equal(consent.wordingFor('pt-BR'), 'Calls are recorded for quality.');
    assert.deepEqual(Object.keys(parseAnnouncements('broken entry|=x')).sort(), ['de', 'en', 'es', 'fr']);
  });
});
