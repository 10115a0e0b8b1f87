import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { eventually } from '@switchboard/runtime/testing';

/** An event the receiver took, with whether its Standard Webhooks signature verified. */
export interface ReceivedEvent {
  readonly headers: Record<string, string>;
  readonly event: { id: string; type: string; agentId: string; createdAt: string; data: Record<string, unknown> };
}

/** A local agent callback endpoint that verifies every request with the `standardwebhooks` library. */
export interface CallbackReceiver {
  readonly url: string;
  readonly events: ReceivedEvent[];
  /** Requests refused because their signature did not verify. */
  readonly rejected: number;
  /** Answer every request with this status (default 200). */
  status: number;
  /**
   * When set, every request is verified first and answered as this says (post `n` counts from 1);
   * each verified one is in `posts`, whatever the answer.
   */
  respond: ((event: ReceivedEvent['event'], n: number) => { status: number; headers?: Record<string, string>; body?: string }) | undefined;
  /** Every verified request while `respond` is set. */
  readonly posts: ReceivedEvent[];
  /** The JSON body to answer a verified event with (a call.turn reply, for example). */
  reply: (event: ReceivedEvent['event']) => unknown;
  /** How long to wait before answering a verified event with `reply` (an agent thinking); 0 by default. */
  replyDelayMs: number;
  /** Resolves when `count` events have been taken. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedEvent[]>;
  close(): Promise<void>;
}

export async function startCallbackReceiver(secret: () => string | undefined): Promise<CallbackReceiver> {
  const events: ReceivedEvent[] = [];
  const posts: ReceivedEvent[] = [];
  let rejected = 0;
  const receiver = {
    url: '',
    events,
    get rejected() {
      return rejected;
    },
    status: 200,
    respond: undefined as CallbackReceiver['respond'],
    posts,
    reply: (() => ({})) as CallbackReceiver['reply'],
    replyDelayMs: 0,
    async waitFor(count: number, timeoutMs?: number) {
      await eventually(() => events.length >= count, { timeoutMs, message: () => `${count} callbacks (${events.length} arrived)` });
      return events.slice(0, count);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const payload = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      if (receiver.respond) {
        let event: ReceivedEvent['event'];
        try {
          event = new Webhook(secret() ?? '').verify(payload, headers) as ReceivedEvent['event'];
        } catch {
          rejected++;
          res.writeHead(401).end();
          return;
        }
        posts.push({ headers, event });
        const answer = receiver.respond(event, posts.length);
        res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
        if (answer.status >= 200 && answer.status < 300) events.push({ headers, event });
        return;
      }
      if (receiver.status !== 200) {
        res.writeHead(receiver.status).end();
        return;
      }
      try {
        const event = new Webhook(secret() ?? '').verify(payload, headers) as ReceivedEvent['event'];
        events.push({ headers, event });
        const answer = JSON.stringify(receiver.reply(event));
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(answer), receiver.replyDelayMs);
      } catch {
        rejected++;
        res.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address() as { port: number };
  receiver.url = `http://127.0.0.1:${address.port}/hooks`;
  return receiver;
}

/** The agent's side of a call in these tests: goodbye ends it, "long" gets a reply long enough to barge in on. */
export function echoReply(said: string): { text: string; end?: boolean } {
  if (said.includes('bye')) return { text: 'Goodbye!', end: true };
  if (said.includes('long')) return { text: 'Here is a rather long answer that goes on and on so that you have plenty of time to interrupt me while I keep talking about nothing much at all.' };
  return { text: `You said: ${said}` };
}

/**
 * A receiver set as the agent's callback URL (its signing secret kept) that answers each `call.turn`
 * with `reply(what the caller said)`: the agent side of a voice call driven through callbacks.
 */
export async function startCallAnswerer(
  setCallbackUrl: (url: string) => Promise<Response>,
  reply: (said: string) => { text: string; end?: boolean },
): Promise<CallbackReceiver> {
  let secret: string | undefined;
  const receiver = await startCallbackReceiver(() => secret);
  secret = ((await (await setCallbackUrl(receiver.url)).json()) as { signingSecret: string }).signingSecret;
  receiver.reply = (event) => (event.type === 'call.turn' ? reply(String(event.data.text)) : {});
  return receiver;
}
