import { ErrorCodes, SwitchboardError, malformedPayload, providerError, type CallRecording, type RecordingEvent, type WebhookRequest } from '@switchboard/sdk';
import type twilio from 'twilio';
import { rewriteOrigin } from './client.js';
import type { TwilioSettings } from './settings.js';
import { isCallSid, isRecordingSid } from './sids.js';
import { one } from './voice-webhooks.js';
import { formParams } from './webhooks.js';

/** A recording can be long: its download may take longer than an API call. */
const DOWNLOAD_TIMEOUT_MS = 120_000;

const STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'absent']);

/**
 * Twilio's call recording: started on the live call through its Recordings resource (both legs, one
 * channel each), announced by a signed recording status callback, downloaded as WAV with the
 * account's credentials (Twilio's "HTTP authentication for media" may be on).
 */
export function twilioRecording(client: twilio.Twilio, settings: TwilioSettings): CallRecording {
  return {
    async start(callSid, { statusCallbackUrl }) {
      if (!isCallSid(callSid)) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'callSid must be a Twilio call SID: CA and 32 hex digits.');
      try {
        await client.calls(callSid).recordings.create({
          recordingChannels: 'dual',
          recordingStatusCallback: statusCallbackUrl,
          recordingStatusCallbackMethod: 'POST',
          recordingStatusCallbackEvent: ['completed', 'absent'],
        });
      } catch (err) {
        throw providerError('twilio', err);
      }
    },
    parseRecordingWebhook: (request) => parseRecordingWebhook(request),
    async fetch(recording) {
      // The URL is made here from the account and the recording's sid, not taken from the callback.
      if (!isRecordingSid(recording.recordingId)) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'recordingId must be a Twilio recording SID: RE and 32 hex digits.');
      const official = `https://api.twilio.com/2010-04-01/Accounts/${settings.accountSid}/Recordings/${recording.recordingId}.wav`;
      const url = settings.baseUrl ? rewriteOrigin(official, settings.baseUrl.replace(/\/+$/, '')) : official;
      const authorization = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64')}`;
      let response: Response;
      try {
        response = await fetch(url, { headers: { authorization, accept: 'audio/wav' }, signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
      } catch (err) {
        throw providerError('twilio', err);
      }
      if (!response.ok) throw providerError('twilio', new Error(`the recording download answered HTTP ${response.status}`), response.status);
      return { audio: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get('content-type') ?? 'audio/wav' };
    },
  };
}

/** A recording status callback as a normalised event; check its signature first with `webhooks.verify`. */
export function parseRecordingWebhook(request: WebhookRequest): RecordingEvent {
  const params = formParams(request.rawBody);
  const field = (key: string) => one(params, key);
  const callSid = field('CallSid');
  const recordingId = field('RecordingSid');
  if (!callSid || !isCallSid(callSid)) throw malformedPayload('twilio', 'has no CallSid that is a Twilio call SID');
  if (!recordingId || !isRecordingSid(recordingId)) throw malformedPayload('twilio', 'has no RecordingSid that is a Twilio recording SID');
  const status = field('RecordingStatus') ?? '';
  if (!STATUSES.has(status)) throw malformedPayload('twilio', `has a RecordingStatus of ${JSON.stringify(status)}, not completed, failed or absent`);
  const duration = Number.parseInt(field('RecordingDuration') ?? '', 10);
  return {
    type: 'recording',
    callSid,
    recordingId,
    status: status as RecordingEvent['status'],
    durationSeconds: Number.isInteger(duration) && duration >= 0 ? duration : null,
    url: field('RecordingUrl') ?? '',
  };
}
