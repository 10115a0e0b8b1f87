import { connect, type Socket } from 'node:net';

/** A bare MCP HTTP+SSE session on one socket: cheap enough to hold ten thousand of them. */
export interface RawSseSession {
  readonly sessionId: string;
  /** Called with each `message` event's JSON. */
  onMessage: (message: Record<string, unknown>) => void;
  /** Called once when the stream ends, whoever closed it. */
  onClose: () => void;
  close(): void;
}

/** Opens `GET /sse` and resolves once the `endpoint` event names the session. */
export function openSse(host: string, port: number, query: string): Promise<RawSseSession> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, host);
    let buffer = '';
    let session: RawSseSession | undefined;
    socket.setNoDelay(true);
    socket.on('connect', () => socket.write(`GET /sse?${query} HTTP/1.1\r\nHost: ${host}\r\nAccept: text/event-stream\r\n\r\n`));
    socket.on('error', (err) => (session ? undefined : reject(err)));
    socket.on('close', () => session?.onClose());
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /(?:^|\n)event: (\S+)/.exec(block)?.[1] ?? 'message';
        const data = /(?:^|\n)data: (.*)/.exec(block)?.[1];
        if (!session && block.startsWith('HTTP/1.1') && !block.startsWith('HTTP/1.1 200')) reject(new Error(block.split('\r\n')[0]));
        if (event === 'endpoint' && data && !session) {
          session = { sessionId: /sessionId=([^&\s]+)/.exec(data)![1]!, onMessage: () => undefined, onClose: () => undefined, close: () => socket.destroy() };
          resolve(session);
        } else if (event === 'message' && data && session) {
          session.onMessage(JSON.parse(data) as Record<string, unknown>);
        }
      }
    });
  });
}
