import type { SimResponse } from '../http/sim-response.js';
import type { SimulatorState } from '../simulator-state.js';
import { twilioPage } from './pagination.js';
import { API_VERSION, formatNumber, rfc2822, twilioHeaders } from './twilio-format.js';
import type { OwnedNumber } from './twilio-ledger.js';

const STARTED_AT = new Date();

/** GET Accounts/{sid}.json: the account itself (Switchboard's health probe). */
export function fetchAccount(state: SimulatorState): SimResponse {
  const { accountSid, authToken } = state.credentials.twilio;
  const base = `/${API_VERSION}/Accounts/${accountSid}`;
  return {
    status: 200,
    headers: twilioHeaders(),
    json: {
      auth_token: authToken,
      date_created: rfc2822(STARTED_AT),
      date_updated: rfc2822(STARTED_AT),
      friendly_name: 'Switchboard simulator',
      owner_account_sid: accountSid,
      sid: accountSid,
      status: 'active',
      subresource_uris: {
        calls: `${base}/Calls.json`,
        incoming_phone_numbers: `${base}/IncomingPhoneNumbers.json`,
        messages: `${base}/Messages.json`,
        recordings: `${base}/Recordings.json`,
      },
      type: 'Full',
      uri: `${base}.json`,
    },
  };
}

function numberJson(accountSid: string, n: OwnedNumber): Record<string, unknown> {
  return {
    account_sid: accountSid,
    address_requirements: 'none',
    address_sid: null,
    api_version: API_VERSION,
    beta: false,
    bundle_sid: null,
    capabilities: { fax: false, mms: true, sms: true, voice: true },
    date_created: rfc2822(n.createdAt),
    date_updated: rfc2822(n.createdAt),
    emergency_status: 'Inactive',
    friendly_name: formatNumber(n.phoneNumber),
    identity_sid: null,
    origin: 'twilio',
    phone_number: n.phoneNumber,
    sid: n.sid,
    sms_application_sid: '',
    sms_fallback_method: 'POST',
    sms_fallback_url: '',
    sms_method: 'POST',
    sms_url: '',
    status: 'in-use',
    status_callback: '',
    status_callback_method: 'POST',
    subresource_uris: { assigned_add_ons: `/${API_VERSION}/Accounts/${accountSid}/IncomingPhoneNumbers/${n.sid}/AssignedAddOns.json` },
    trunk_sid: null,
    uri: `/${API_VERSION}/Accounts/${accountSid}/IncomingPhoneNumbers/${n.sid}.json`,
    voice_application_sid: null,
    voice_caller_id_lookup: false,
    voice_fallback_method: 'POST',
    voice_fallback_url: null,
    voice_method: 'POST',
    voice_receive_mode: 'voice',
    voice_url: null,
  };
}

/** GET IncomingPhoneNumbers.json, filtered by PhoneNumber like Twilio. */
export function listIncomingPhoneNumbers(state: SimulatorState, query: URLSearchParams): SimResponse {
  const { accountSid } = state.credentials.twilio;
  const wanted = query.get('PhoneNumber');
  const items = state.twilio.numbers.filter((n) => !wanted || n.phoneNumber.includes(wanted)).map((n) => numberJson(accountSid, n));
  return {
    status: 200,
    headers: twilioHeaders(),
    json: twilioPage(
      'incoming_phone_numbers',
      `/${API_VERSION}/Accounts/${accountSid}/IncomingPhoneNumbers.json`,
      items,
      query,
      wanted ? { PhoneNumber: wanted } : {},
    ),
  };
}
