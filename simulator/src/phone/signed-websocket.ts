import twilio from 'twilio';
import WebSocket from 'ws';
import type { WebhookTampering } from '../inbound-types.js';

/** The outcome of opening a voice WebSocket. */
export interface SignedSocket {
  /** The open socket; absent when the upgrade was refused or failed. */
  ws?: WebSocket;
  /** 101 when upgraded, else the HTTP status answered (0: no answer). */
  status: number;
  signature: 'valid' | 'tampered' | 'omitted';
  error?: string;
}

const HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * Frames are masked with a zero key: still valid framing for any server, and ws then sends text
 * without copying or XOR-ing it — about a third of the cost of a media frame. Masking keys exist to
 * stop browser scripts poisoning proxies; the simulator is not a browser.
 */
function zeroMask(mask: Uint8Array): void {
  mask.fill(0);
}

/**
 * The X-Twilio-Signature of a WebSocket upgrade, as Twilio signs Media Streams and
 * ConversationRelay connections: HMAC-SHA1 with the auth token over the full `wss://` URL as the
 * TwiML wrote it (query string included), with no body parameters; base64.
 */
export function upgradeSignature(authToken: string, url: string): string {
  return twilio.getExpectedTwilioSignature(authToken, url, {});
}

/**
 * Opens the voice WebSocket the way Twilio does: a GET upgrade carrying X-Twilio-Signature over
 * `url`. `connectUrl` is where the socket really goes (after URL rewrites). `tamper` signs another
 * URL; `omitSignature` sends no signature.
 */
export function openSignedWebSocket(authToken: string, url: string, connectUrl: string, tampering: WebhookTampering = {}): Promise<SignedSocket> {
  const signature: SignedSocket['signature'] = tampering.omitSignature ? 'omitted' : tampering.tamper ? 'tampered' : 'valid';
  const headers: Record<string, string> = { 'user-agent': 'Twilio.TmeWs/1.0' };
  if (signature !== 'omitted') headers['x-twilio-signature'] = upgradeSignature(authToken, signature === 'tampered' ? `${url}${url.includes('?') ? '&' : '?'}tampered=1` : url);
  return new Promise((resolve) => {
    let ws: WebSocket;
    try {
      ws = new WebSocket(connectUrl, { headers, perMessageDeflate: false, handshakeTimeout: HANDSHAKE_TIMEOUT_MS, generateMask: zeroMask });
    } catch (err) {
      resolve({ status: 0, signature, error: (err as Error).message });
      return;
    }
    let settled = false;
    const settle = (result: SignedSocket) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    ws.once('open', () => settle({ ws, status: 101, signature }));
    ws.once('unexpected-response', (req, res) => {
      res.resume();
      req.destroy();
      settle({ status: res.statusCode ?? 0, signature, error: `upgrade refused with HTTP ${res.statusCode}` });
    });
    // Stays registered: a refused upgrade may also emit an error after settling.
    ws.on('error', (err) => settle({ status: 0, signature, error: err.message }));
  });
}
