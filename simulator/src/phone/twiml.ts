import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { VoiceMode } from './phone-types.js';

/** A TwiML voice verb, as the phone executes it. */
export type TwimlVerb =
  | { verb: 'Say'; text: string; voice?: string; language?: string; loop: number }
  | { verb: 'Play'; url: string; loop: number; digits?: string }
  | { verb: 'Pause'; seconds: number }
  | { verb: 'Hangup' }
  | { verb: 'Reject'; reason: string }
  | { verb: 'Redirect'; url: string; method: string }
  | { verb: 'Dial'; numbers: string[]; callerId?: string; action?: string; method: string; timeoutSeconds: number }
  | {
      verb: 'Connect';
      mode: VoiceMode;
      url: string;
      parameters: Record<string, string>;
      /** Attributes of `<ConversationRelay>` / `<Stream>` (welcomeGreeting, language, voice...). */
      attributes: Record<string, string>;
      action?: string;
      method: string;
    }
  | { verb: 'Unsupported'; name: string };

/** Thrown for a document that is not TwiML (Twilio's error 12100). */
export class TwimlError extends Error {
  readonly code = 12100;
}

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
});

function nameOf(node: OrderedNode): string {
  return Object.keys(node).find((k) => k !== ':@') ?? '';
}

function childrenOf(node: OrderedNode): OrderedNode[] {
  const value = node[nameOf(node)];
  return Array.isArray(value) ? (value as OrderedNode[]) : [];
}

function textOf(node: OrderedNode): string {
  return childrenOf(node)
    .map((c) => (typeof c['#text'] === 'string' || typeof c['#text'] === 'number' ? String(c['#text']) : ''))
    .join('')
    .trim();
}

function loopOf(attrs: Record<string, string>): number {
  const n = Number.parseInt(attrs['loop'] ?? '1', 10);
  // loop="0" repeats forever on Twilio; the phone hears it once.
  return Number.isFinite(n) && n > 0 ? Math.min(n, 10) : 1;
}

function parametersOf(node: OrderedNode): Record<string, string> {
  const out: Record<string, string> = {};
  for (const child of childrenOf(node)) {
    if (nameOf(child) !== 'Parameter') continue;
    const a = child[':@'] ?? {};
    if (a['name'] !== undefined) out[a['name']] = a['value'] ?? '';
  }
  return out;
}

function verbOf(node: OrderedNode): TwimlVerb | undefined {
  const name = nameOf(node);
  const a = node[':@'] ?? {};
  switch (name) {
    case '#text':
    case '':
      return undefined;
    case 'Say': {
      const say: TwimlVerb = { verb: 'Say', text: textOf(node), loop: loopOf(a) };
      if (a['voice']) say.voice = a['voice'];
      if (a['language']) say.language = a['language'];
      return say;
    }
    case 'Play': {
      const play: TwimlVerb = { verb: 'Play', url: textOf(node), loop: loopOf(a) };
      if (a['digits']) play.digits = a['digits'];
      return play;
    }
    case 'Pause': {
      const seconds = Number.parseFloat(a['length'] ?? '1');
      return { verb: 'Pause', seconds: Number.isFinite(seconds) && seconds >= 0 ? seconds : 1 };
    }
    case 'Hangup':
      return { verb: 'Hangup' };
    case 'Reject':
      return { verb: 'Reject', reason: a['reason'] ?? 'rejected' };
    case 'Redirect':
      return { verb: 'Redirect', url: textOf(node), method: (a['method'] ?? 'POST').toUpperCase() };
    case 'Dial': {
      const nested = childrenOf(node).filter((c) => ['Number', 'Client', 'Sip'].includes(nameOf(c)));
      const numbers = nested.length > 0 ? nested.map(textOf) : [textOf(node)].filter(Boolean);
      const timeout = Number.parseInt(a['timeout'] ?? '30', 10);
      const dial: TwimlVerb = { verb: 'Dial', numbers, method: (a['method'] ?? 'POST').toUpperCase(), timeoutSeconds: Number.isFinite(timeout) ? timeout : 30 };
      if (a['callerId']) dial.callerId = a['callerId'];
      if (a['action']) dial.action = a['action'];
      return dial;
    }
    case 'Connect': {
      const target = childrenOf(node).find((c) => nameOf(c) === 'ConversationRelay' || nameOf(c) === 'Stream');
      if (!target) return { verb: 'Unsupported', name: 'Connect' };
      const attributes = { ...(target[':@'] ?? {}) };
      const connect: TwimlVerb = {
        verb: 'Connect',
        mode: nameOf(target) === 'Stream' ? 'stream' : 'relay',
        url: attributes['url'] ?? '',
        parameters: parametersOf(target),
        attributes,
        method: (a['method'] ?? 'POST').toUpperCase(),
      };
      if (a['action']) connect.action = a['action'];
      return connect;
    }
    default:
      return { verb: 'Unsupported', name };
  }
}

/** Parses a TwiML voice document into the verbs of its `<Response>`; throws TwimlError when it is not TwiML. */
export function parseTwiml(xml: string): TwimlVerb[] {
  if (xml.trim() === '') throw new TwimlError('The TwiML document is empty');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new TwimlError(`The TwiML document is not well-formed XML: ${valid.err.msg}`);
  const nodes = parser.parse(xml) as OrderedNode[];
  const response = nodes.find((n) => nameOf(n) === 'Response');
  if (!response) throw new TwimlError('The TwiML document has no <Response> root');
  return childrenOf(response)
    .map(verbOf)
    .filter((v): v is TwimlVerb => v !== undefined);
}
