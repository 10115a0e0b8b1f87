import { eventually } from '@switchboard/runtime/testing';

/** One parsed server-sent event, or a comment line. */
export interface SseFrame {
  readonly event?: string;
  readonly data?: string;
  readonly comment?: string;
}

/**
 * A raw SSE stream read with fetch, for tests that need to see frames, comments and the clean end
 * that the official client hides.
 */
export class RawSseStream {
  readonly frames: SseFrame[] = [];
  /** Resolves true on a clean end of the body, false when it broke. */
  readonly ended: Promise<boolean>;
  readonly #abort = new AbortController();
  #buffer = '';

  private constructor(readonly response: Response) {
    this.ended = this.#read();
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<RawSseStream> {
    const controller = new AbortController();
    const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
    const stream = new RawSseStream(response);
    stream.#abort.signal.addEventListener('abort', () => controller.abort());
    return stream;
  }

  /** Waits for the first frame (already seen or coming) that matches. */
  async next(match: (frame: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame> {
    return eventually(() => this.frames.find(match), { timeoutMs, message: 'an SSE frame that matches' });
  }

  /** The session id from the `endpoint` event. */
  async sessionId(): Promise<string> {
    const frame = await this.next((f) => f.event === 'endpoint');
    return new URL(frame.data!, 'http://x').searchParams.get('sessionId')!;
  }

  close(): void {
    this.#abort.abort();
  }

  async #read(): Promise<boolean> {
    if (!this.response.body) return true;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of this.response.body) {
        this.#buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let cut: number;
        while ((cut = this.#buffer.indexOf('\n\n')) >= 0) {
          this.#parse(this.#buffer.slice(0, cut));
          this.#buffer = this.#buffer.slice(cut + 2);
        }
      }
      return true;
    } catch {
      return false;
    }
  }

  #parse(block: string): void {
    const frame: { event?: string; data?: string; comment?: string } = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) frame.comment = line.slice(1).trim();
      else if (line.startsWith('event:')) frame.event = line.slice(6).trim();
      else if (line.startsWith('data:')) frame.data = (frame.data === undefined ? '' : `${frame.data}\n`) + line.slice(5).trimStart();
    }
    this.frames.push(frame);
  }
}
