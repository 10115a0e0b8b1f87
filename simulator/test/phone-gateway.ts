import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import twilio from 'twilio';
import { WebSocketServer, type WebSocket } from 'ws';
import { encodeMulaw, synthesizeSpeech, wavFile } from '../src/index.js';

/** How the stand-in gateway answers one agent's calls. */
export interface AgentBehaviour {
  mode: 'relay' | 'stream';
  greeting?: string;
  /** Public base of the WebSocket URL in the TwiML (signed over); the real socket is on loopback. */
  publicWsBase?: string;
  /** Add `action` to `<Connect>`; its answer says goodbye and hangs up. */
  connectAction?: boolean;
  /** A static TwiML answer instead of a Connect. */
  twiml?: (gatewayUrl: string) => string;
  /** Stream: reply lengths by turn (characters of speech); 10 by default. */
  replyChars?: (turn: number) => number;
}

export interface Webhook {
  path: string;
  params: Record<string, string>;
  valid: boolean;
  at: number;
}

export interface RelayLog {
  agentId: string;
  messages: Array<Record<string, unknown>>;
}

export interface StreamLog {
  agentId: string;
  messages: Array<Record<string, unknown>>;
  /** performance.now() of each media frame received. */
  arrivals: number[];
  speechFrames: number;
  marksSent: Array<{ name: string; at: number; audioMs: number }>;
  marksBack: Array<{ name: string; at: number }>;
  clears: number;
}

export interface FakeGateway {
  url: string;
  webhooks: Webhook[];
  upgrades: Array<{ path: string; valid: boolean }>;
  relays: RelayLog[];
  streams: StreamLog[];
  close(): Promise<void>;
}

const SQUARE = new Float64Array(256).map((_, b) => {
  const u = ~b & 0xff;
  const e = (u >> 4) & 7;
  const s = ((((u & 0x0f) << 3) + 0x84) << e) - 0x84;
  return s * s;
});

function rms(frame: Buffer): number {
  let sum = 0;
  for (const b of frame) sum += SQUARE[b]!;
  return Math.sqrt(sum / Math.max(1, frame.length));
}

function replyText(agent: AgentBehaviour, turn: number): string {
  const chars = agent.replyChars?.(turn) ?? 10;
  return 'Reply text'.padEnd(chars, ' words').slice(0, chars);
}

const spoken = new Map<string, Buffer>();
/** Synthetic speech, cached: synthesis is slow enough to delay the phone's frames in this process. */
function speechOf(text: string): Buffer {
  let audio = spoken.get(text);
  if (!audio) spoken.set(text, (audio = encodeMulaw(synthesizeSpeech(text, 8000))));
  return audio;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A small stand-in for Switchboard's voice routes: it checks every Twilio signature (webhooks and
 * WebSocket upgrades, with twilio's validateRequest), answers TwiML, and speaks both protocols
 * simply — the relay echoes prompts; the stream detects speech by level, replies with synthetic
 * audio and a mark, and clears its audio when the caller talks over it.
 */
export async function startFakeGateway(authToken: string, agents: Record<string, AgentBehaviour>): Promise<FakeGateway> {
  const webhooks: Webhook[] = [];
  const upgrades: FakeGateway['upgrades'] = [];
  const relays: RelayLog[] = [];
  const streams: StreamLog[] = [];
  let base = '';

  const wsUrlFor = (agentId: string) => `${agents[agentId]?.publicWsBase ?? base.replace(/^http/, 'ws')}/webhooks/${agentId}/voice-ws`;

  function connectTwiml(agentId: string, agent: AgentBehaviour): string {
    const action = agent.connectAction ? ` action="${base}/webhooks/${agentId}/connect-done"` : '';
    const param = `<Parameter name="agentId" value="${agentId}"/><Parameter name="purpose" value="test"/>`;
    const target =
      agent.mode === 'relay'
        ? `<ConversationRelay url="${wsUrlFor(agentId)}"${agent.greeting ? ` welcomeGreeting="${agent.greeting}"` : ''} language="en-US">${param}</ConversationRelay>`
        : `<Stream url="${wsUrlFor(agentId)}">${param}</Stream>`;
    return `<?xml version="1.0" encoding="UTF-8"?><Response><Connect${action}>${target}</Connect><Say>Goodbye from the gateway</Say></Response>`;
  }

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = req.url ?? '/';
    if (req.method === 'GET' && path.startsWith('/audio/')) {
      if (path.endsWith('.wav')) {
        res.writeHead(200, { 'content-type': 'audio/wav' });
        res.end(wavFile(synthesizeSpeech('hold music', 8000), 8000));
      } else {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>not audio</html>');
      }
      return;
    }
    const params = Object.fromEntries(new URLSearchParams(body));
    const url = `${base}${path}`;
    const valid = twilio.validateRequest(authToken, String(req.headers['x-twilio-signature'] ?? ''), url, params);
    webhooks.push({ path, params, valid, at: performance.now() });
    if (!valid) {
      res.writeHead(403).end('forbidden');
      return;
    }
    const [, , agentId, kind] = path.split(/[/?]/);
    const agent = agents[agentId ?? ''];
    res.writeHead(200, { 'content-type': 'text/xml' });
    if ((kind === 'voice' || kind === 'outbound-voice') && agent) res.end(agent.twiml ? agent.twiml(base) : connectTwiml(agentId!, agent));
    else if (kind === 'connect-done') res.end('<Response><Say>Thanks for calling</Say><Hangup/></Response>');
    else res.end('<Response/>');
  });

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const path = req.url ?? '/';
    const agentId = path.split('/')[2] ?? '';
    const publicUrl = `${agents[agentId]?.publicWsBase ?? base.replace(/^http/, 'ws')}${path}`;
    const valid = twilio.validateRequest(authToken, String(req.headers['x-twilio-signature'] ?? ''), publicUrl, {});
    upgrades.push({ path, valid });
    if (!valid) {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => (agents[agentId]?.mode === 'stream' ? serveStream(ws, agentId) : serveRelay(ws, agentId)));
  });

  function serveRelay(ws: WebSocket, agentId: string): void {
    const log: RelayLog = { agentId, messages: [] };
    relays.push(log);
    let timer: NodeJS.Timeout | undefined;
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as Record<string, unknown>;
      log.messages.push(msg);
      if (msg['type'] === 'interrupt') clearInterval(timer);
      if (msg['type'] !== 'prompt') return;
      const prompt = String(msg['voicePrompt']);
      if (prompt === 'goodbye') {
        ws.send(JSON.stringify({ type: 'end', handoffData: JSON.stringify({ reason: 'caller said goodbye' }) }));
        return;
      }
      if (prompt === 'play something') {
        ws.send(JSON.stringify({ type: 'play', source: `${base}/audio/jingle.wav` }));
        ws.send(JSON.stringify({ type: 'text', token: 'Here it is.', last: true }));
        return;
      }
      // Long answers stream a word every 40 ms, so the caller can talk over them.
      const words = (prompt.includes('story') ? 'Once upon a time there was a gateway that answered every call with patience and care.' : `You said: ${prompt}`).split(' ');
      let i = 0;
      clearInterval(timer);
      timer = setInterval(() => {
        const last = i === words.length - 1;
        ws.send(JSON.stringify({ type: 'text', token: i === 0 ? words[i] : ` ${words[i]}`, last }));
        if (last) clearInterval(timer);
        i++;
      }, 40);
    });
    ws.on('close', () => clearInterval(timer));
  }

  function serveStream(ws: WebSocket, agentId: string): void {
    const log: StreamLog = { agentId, messages: [], arrivals: [], speechFrames: 0, marksSent: [], marksBack: [], clears: 0 };
    streams.push(log);
    const agent = agents[agentId]!;
    let streamSid = '';
    let voiced = 0;
    let silentAfter = 0;
    let turn = 0;
    let playing = false;
    const speak = (text: string, mark: string) => {
      const audio = speechOf(text);
      for (let at = 0; at < audio.length; at += 160) {
        ws.send(JSON.stringify({ event: 'media', streamSid, media: { payload: audio.subarray(at, at + 160).toString('base64') } }));
      }
      ws.send(JSON.stringify({ event: 'mark', streamSid, mark: { name: mark } }));
      log.marksSent.push({ name: mark, at: performance.now(), audioMs: audio.length / 8 });
      playing = true;
    };
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as Record<string, unknown>;
      if (msg['event'] !== 'media') log.messages.push(msg);
      switch (msg['event']) {
        case 'start':
          streamSid = String(msg['streamSid']);
          if (agent.greeting) speak(agent.greeting, 'greeting');
          return;
        case 'mark':
          log.marksBack.push({ name: String((msg['mark'] as { name: string }).name), at: performance.now() });
          if (log.marksBack.length >= log.marksSent.length) playing = false;
          return;
        case 'media': {
          log.arrivals.push(performance.now());
          const frame = Buffer.from(String((msg['media'] as { payload: string }).payload), 'base64');
          if (rms(frame) > 400) {
            log.speechFrames++;
            voiced++;
            silentAfter = 0;
            // Barge-in: the caller talks over our audio.
            if (playing && voiced === 3) {
              ws.send(JSON.stringify({ event: 'clear', streamSid }));
              log.clears++;
              playing = false;
            }
          } else if (voiced >= 5 && ++silentAfter >= 10) {
            voiced = 0;
            silentAfter = 0;
            turn++;
            speak(replyText(agent, turn), `reply-${turn}`);
          }
          return;
        }
      }
    });
  }

  for (const agent of Object.values(agents)) {
    if (agent.greeting) speechOf(agent.greeting);
    for (let turn = 1; turn <= 3; turn++) speechOf(replyText(agent, turn));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    webhooks,
    upgrades,
    relays,
    streams,
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
