/** Keywords that opt a number out of SMS, as carriers and Twilio recognise them. */
const OPT_OUT = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'REVOKE']);
/** Keywords that opt it back in. */
const OPT_IN = new Set(['START', 'YES', 'UNSTOP']);

/** Whether an inbound SMS or WhatsApp body is an opt-out or opt-in keyword (the whole message, any case). */
export function optKeyword(body: string): 'out' | 'in' | undefined {
  const word = body.trim().toUpperCase().replace(/[.!]+$/, '');
  if (OPT_OUT.has(word)) return 'out';
  if (OPT_IN.has(word)) return 'in';
  return undefined;
}
