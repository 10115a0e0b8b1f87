import { Type } from '@sinclair/typebox';

/** Settings of calls: calling hours, how calls attach, turn and call limits, speech failover and recordings. */
export const VOICE_SETTINGS = {
  CALLING_HOURS: Type.Union([Type.Literal('off'), Type.Literal('enforce')], {
    default: 'off',
    description:
      "enforce: calls (and texts an agent marks as marketing) are refused outside the recipient's calling hours, in the recipient's time zone (OUTSIDE_CALLING_HOURS, with when they open); off: not checked. The do-not-contact list is always enforced.",
  }),
  VOICE_MODE: Type.Union([Type.Literal('relay'), Type.Literal('stream')], {
    default: 'relay',
    description: 'How calls attach by default: relay (ConversationRelay: the provider does speech) or stream (Media Streams: Switchboard does).',
  }),
  VOICE_TURN_TIMEOUT_MS: Type.Integer({ default: 8000, minimum: 100, maximum: 120_000, description: 'How long the agent may take to answer one turn of a call.' }),
  VOICE_MAX_CALL_SECONDS: Type.Integer({ default: 600, minimum: 10, maximum: 14_400, description: 'Calls are ended politely after this long.' }),
  TTS_FAILOVER_TIMEOUT_MS: Type.Integer({
    default: 5000,
    minimum: 100,
    maximum: 60_000,
    description: "With several TTS_DRIVER providers (`elevenlabs,openai`): how long one may take to synthesise a call turn's speech before the turn is spoken by the next. A lone provider keeps its driver's own time-out.",
  }),
  RECORDINGS_DIR: Type.String({
    default: '',
    description:
      'Folder for call recordings (WAV, both legs). Empty: DATA_DIR/recordings. In a cluster, a folder every gateway and runtime node shares (a network volume): the gateway holding a stream-mode call writes its recording, a node stores a relay call\'s provider recording, and any gateway serves them.',
  }),
  RECORDING_RETENTION_DAYS: Type.Integer({
    default: 30,
    minimum: 0,
    maximum: 3650,
    description: 'How long call recordings are kept (0: removed at the next hourly sweep). Recording is off unless an agent (recordCalls) or a call (record) asks for it.',
  }),
  RECORDING_ANNOUNCEMENTS: Type.String({
    default: '',
    description:
      "How a recorded call tells the other party it is recorded, where their place asks every party's consent (France, Germany, Australia, California and the other US all-party states): `<language>=<text>` entries separated by `|`, replacing or adding to the built-in en, fr, de and es wording (`en=This call is recorded for quality.|it=La chiamata è registrata.`). The call's language picks one, else its base language, else English.",
  }),
};
