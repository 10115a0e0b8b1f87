import { wavFile } from '@switchboard/sdk';
import { synthesizeSpeech } from '../audio.js';
import type { SimResponse } from '../http/sim-response.js';
import { twilioSid } from '../ids.js';
import type { SimulatorState } from '../simulator-state.js';
import type { InboundRecordingStatusOptions } from '../inbound-types.js';
import type { SimCall } from '../types.js';
import { twilioError } from './twilio-errors.js';
import { API_VERSION, formField, formFieldList, isHttpUrl, rfc2822, twilioHeaders } from './twilio-format.js';
import { postTwilioWebhook } from './twilio-webhook.js';

type Form = Record<string, string | string[]>;

/** Twilio records calls at 8 kHz; a dual-channel file has the call's first leg left and the other right. */
const SAMPLE_RATE = 8000;

/** A call recording of the simulated account. */
export interface SimRecording {
  sid: string;
  accountSid: string;
  callSid: string;
  status: 'in-progress' | 'completed' | 'absent';
  channels: 1 | 2;
  source: 'StartCallRecordingAPI' | 'OutboundAPI';
  startTime: Date;
  statusCallback?: string;
  statusCallbackEvents: string[];
  durationSeconds?: number;
  /** The WAV file, once completed. */
  audio?: Buffer;
}

/** The Recording resource JSON, with the fields Twilio returns. */
function recordingJson(recording: SimRecording): Record<string, unknown> {
  const uri = `/${API_VERSION}/Accounts/${recording.accountSid}/Recordings/${recording.sid}.json`;
  return {
    account_sid: recording.accountSid,
    api_version: API_VERSION,
    call_sid: recording.callSid,
    conference_sid: null,
    channels: recording.channels,
    date_created: rfc2822(recording.startTime),
    date_updated: rfc2822(new Date()),
    start_time: rfc2822(recording.startTime),
    duration: recording.durationSeconds === undefined ? '-1' : String(recording.durationSeconds),
    price: null,
    price_unit: 'USD',
    sid: recording.sid,
    source: recording.source,
    status: recording.status,
    error_code: null,
    track: 'both',
    uri,
  };
}

/** POST Calls/{sid}/Recordings.json: starts recording a call in progress (Twilio's "start a call recording"). */
export function startCallRecording(state: SimulatorState, call: SimCall, form: Form): SimResponse {
  if (call.status !== 'in-progress') return twilioError(400, 21220, 'Call is not in-progress. Cannot start a recording.');
  const statusCallback = formField(form, 'RecordingStatusCallback');
  if (statusCallback !== undefined && !isHttpUrl(statusCallback)) return twilioError(400, 21609, `RecordingStatusCallback is not a valid URL: ${statusCallback}`);
  const events = formFieldList(form, 'RecordingStatusCallbackEvent');
  const recording: SimRecording = {
    sid: twilioSid('RE'),
    accountSid: call.accountSid,
    callSid: call.sid,
    status: 'in-progress',
    channels: formField(form, 'RecordingChannels') === 'mono' ? 1 : 2,
    source: 'StartCallRecordingAPI',
    startTime: new Date(),
    statusCallbackEvents: events.length > 0 ? events.flatMap((e) => e.split(/\s+/)) : ['completed'],
  };
  if (statusCallback) recording.statusCallback = statusCallback;
  state.twilio.recordings.set(recording.sid, recording);
  return { status: 201, headers: twilioHeaders(), json: recordingJson(recording) };
}

/**
 * The call ended: its recordings in progress complete (the audio the simulated carrier heard, as
 * long as the recording ran), and each posts its signed status callback when one was asked for.
 */
export function completeCallRecordings(state: SimulatorState, call: SimCall): void {
  const end = call.endTime ?? new Date();
  for (const recording of state.twilio.recordings.values()) {
    if (recording.callSid !== call.sid || recording.status !== 'in-progress') continue;
    const seconds = Math.max(0, (end.getTime() - recording.startTime.getTime()) / 1000);
    finish(recording, seconds);
    void postRecordingStatus(state, recording);
  }
}

/** Sets a recording completed with `seconds` of audio: what each party said, one channel each. */
function finish(recording: SimRecording, seconds: number): void {
  const frames = Math.round(seconds * SAMPLE_RATE);
  recording.durationSeconds = Math.round(seconds);
  if (frames === 0) {
    recording.status = 'absent';
    return;
  }
  const caller = synthesizeSpeech('hello, this is the caller speaking', SAMPLE_RATE);
  const agent = synthesizeSpeech('hello, the agent answering', SAMPLE_RATE);
  const samples = new Int16Array(frames * recording.channels);
  for (let i = 0; i < frames; i++) {
    const left = caller[i] ?? 0;
    // The agent answers half a second in.
    const right = agent[i - SAMPLE_RATE / 2] ?? 0;
    if (recording.channels === 2) {
      samples[2 * i] = left;
      samples[2 * i + 1] = right;
    } else samples[i] = Math.max(-32768, Math.min(32767, left + right));
  }
  recording.audio = wavFile(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength), SAMPLE_RATE, recording.channels);
  recording.status = 'completed';
}

/** The form parameters of a recording status callback, as Twilio posts them. */
export function recordingStatusParams(recording: SimRecording): Record<string, string> {
  return {
    AccountSid: recording.accountSid,
    CallSid: recording.callSid,
    RecordingSid: recording.sid,
    RecordingUrl: `https://api.twilio.com/${API_VERSION}/Accounts/${recording.accountSid}/Recordings/${recording.sid}`,
    RecordingStatus: recording.status,
    RecordingDuration: String(recording.durationSeconds ?? 0),
    RecordingChannels: String(recording.channels),
    RecordingStartTime: rfc2822(recording.startTime),
    RecordingSource: recording.source,
    RecordingTrack: 'both',
    ErrorCode: '0',
  };
}

async function postRecordingStatus(state: SimulatorState, recording: SimRecording): Promise<void> {
  const url = recording.statusCallback;
  if (!url || !recording.statusCallbackEvents.includes(recording.status)) return;
  try {
    const answer = await postTwilioWebhook(state.credentials.twilio.authToken, url, recordingStatusParams(recording), {}, 'RecordingStatus');
    if (answer.status >= 400) state.logger.warn({ recordingSid: recording.sid, status: answer.status }, 'simulator: recording status callback refused');
  } catch (err) {
    state.logger.warn({ recordingSid: recording.sid, err }, 'simulator: recording status callback failed');
  }
}

/**
 * A completed recording of `seconds` for a call, its callback posted to `url` (signed; tampered or
 * unsigned on request): what a driver's recording case reads without a live call.
 */
export async function sendRecordingStatus(
  state: SimulatorState,
  o: InboundRecordingStatusOptions,
): Promise<{ recordingSid: string; status: number }> {
  const recording: SimRecording = {
    sid: twilioSid('RE'),
    accountSid: state.credentials.twilio.accountSid,
    callSid: o.callSid ?? twilioSid('CA'),
    status: 'in-progress',
    channels: 2,
    source: 'StartCallRecordingAPI',
    startTime: new Date(Date.now() - (o.seconds ?? 3) * 1000),
    statusCallback: o.url,
    statusCallbackEvents: ['completed'],
  };
  finish(recording, o.seconds ?? 3);
  state.twilio.recordings.set(recording.sid, recording);
  const answer = await postTwilioWebhook(state.credentials.twilio.authToken, o.url, recordingStatusParams(recording), o, 'RecordingStatus');
  return { recordingSid: recording.sid, status: answer.status };
}

/** GET Recordings/{sid}[.wav|.json]: the media (WAV, Twilio's default) or the resource. */
export function fetchRecording(state: SimulatorState, sid: string, extension: string | undefined, path: string): SimResponse | undefined {
  const recording = state.twilio.recordings.get(sid);
  if (!recording || recording.accountSid !== state.credentials.twilio.accountSid) return undefined;
  if (extension === '.json') return { status: 200, headers: twilioHeaders(), json: recordingJson(recording) };
  if (extension === '.mp3') return twilioError(415, 20004, `The simulator serves recordings as WAV only: ${path}`);
  if (!recording.audio) return undefined;
  return { status: 200, headers: { 'content-type': 'audio/x-wav' }, binary: recording.audio };
}
