import { randomBytes, randomUUID } from 'node:crypto';
import { base62, opaqueToken, twilioSid } from './ids.js';
import { graphId } from './whatsapp-cloud/cloud-ledger.js';
import { publicKeyOf, telnyxKeyPair } from './telnyx/telnyx-keys.js';
import type { LineBotCredentials, SimulatorCredentials } from './types.js';

/** A LINE bot with random credentials in LINE's formats. */
function lineBot(botUserId = `U${randomBytes(16).toString('hex')}`): LineBotCredentials {
  return { channelAccessToken: opaqueToken(129), channelSecret: randomBytes(16).toString('hex'), botUserId };
}

/**
 * Random credentials in each provider's own format, merged over any given ones; `lineBotUserIds`
 * adds LINE bots beside the first.
 */
export function resolveCredentials(given: Partial<SimulatorCredentials> = {}, lineBotUserIds: readonly string[] = []): SimulatorCredentials {
  const line = { ...lineBot(), ...given.line };
  const more = (given.lineBots ?? []).filter((b) => b.botUserId !== line.botUserId);
  const ids = new Set([line.botUserId, ...more.map((b) => b.botUserId)]);
  for (const id of lineBotUserIds) {
    if (ids.has(id)) continue;
    ids.add(id);
    more.push(lineBot(id));
  }
  return {
    twilio: {
      accountSid: twilioSid('AC'),
      authToken: randomBytes(16).toString('hex'),
      ...given.twilio,
    },
    telnyx: telnyxCredentials(given.telnyx),
    resend: {
      apiKey: `re_${base62(8)}_${base62(24)}`,
      webhookSecret: `whsec_${randomBytes(24).toString('base64')}`,
      ...given.resend,
    },
    postmark: {
      serverToken: randomUUID(),
      webhookUsername: 'postmark',
      webhookPassword: randomBytes(18).toString('base64url'),
      ...given.postmark,
    },
    line,
    lineBots: [line, ...more],
    elevenlabs: {
      apiKey: `sk_${randomBytes(24).toString('hex')}`,
      ...given.elevenlabs,
    },
    deepgram: {
      apiKey: randomBytes(20).toString('hex'),
      ...given.deepgram,
    },
    openai: { apiKey: `sk-proj-${base62(48)}`, ...given.openai },
    whatsappCloud: {
      accessToken: `EAA${base62(180)}`,
      appSecret: randomBytes(16).toString('hex'),
      verifyToken: opaqueToken(18),
      phoneNumberId: graphId(15),
      wabaId: graphId(15),
      ...given.whatsappCloud,
    },
  };
}

/** Telnyx credentials: a given signing key keeps its public key; a given public key alone cannot sign, so it is ignored. */
function telnyxCredentials(given: Partial<SimulatorCredentials['telnyx']> = {}): SimulatorCredentials['telnyx'] {
  const apiKey = given.apiKey ?? `KEY${randomBytes(16).toString('hex').toUpperCase()}_${base62(22)}`;
  if (given.signingKey) return { apiKey, signingKey: given.signingKey, publicKey: publicKeyOf(given.signingKey) };
  return { apiKey, ...telnyxKeyPair() };
}
