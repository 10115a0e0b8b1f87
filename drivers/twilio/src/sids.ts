/** A Twilio SID: the resource's two-letter prefix and 32 hex digits (CA… for calls). */
const CALL_SID = /^CA[0-9a-fA-F]{32}$/;
/** Message SIDs: SM… (SMS, WhatsApp), MM… (MMS). */
const MESSAGE_SID = /^(SM|MM)[0-9a-fA-F]{32}$/;

/** True for a call SID; nothing else may go into a Calls resource path. */
export function isCallSid(value: string): boolean {
  return CALL_SID.test(value);
}

const RECORDING_SID = /^RE[0-9a-fA-F]{32}$/;

/** True for a recording SID; nothing else may go into a Recordings resource path. */
export function isRecordingSid(value: string): boolean {
  return RECORDING_SID.test(value);
}

/** True for a message SID; nothing else may go into a Messages resource path. */
export function isMessageSid(value: string): boolean {
  return MESSAGE_SID.test(value);
}
