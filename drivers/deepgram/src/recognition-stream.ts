import type { DeepgramClient } from '@deepgram/sdk';
import { providerError, type DriverLogger, type RecognitionStream } from '@switchboard/sdk';

/** A live `/v1/listen` socket of the official SDK. */
export type ListenSocket = Awaited<ReturnType<DeepgramClient['listen']['v1']['connect']>>;

/** Deepgram closes a stream idle for 10 s (NET-0001); a KeepAlive after this much quiet prevents it. */
const KEEPALIVE_AFTER_MS = 4000;
/** How long `close()` waits for Deepgram to flush and close before dropping the socket. */
const CLOSE_TIMEOUT_MS = 2000;

interface PendingFinalize {
  resolve: (transcript: string) => void;
  timer: NodeJS.Timeout;
}

/**
 * One Deepgram live transcription stream. Audio is sent in chunks of `chunkBytes` (a phone call
 * writes a 20 ms frame at a time; one WebSocket message per frame would cost a socket write per
 * frame per call), and whatever is held is sent before a Finalize or CloseStream. Final segments
 * (`is_final`) are collected; `finalize()` sends `Finalize` and resolves with the segments so far
 * once Deepgram answers `from_finalize` (or after `finalizeTimeoutMs`, since Deepgram does not
 * answer when it holds no audio).
 * If the socket drops, pending finalizes resolve with what was heard, later ones reject with a
 * retryable PROVIDER_ERROR, and writes are ignored.
 */
export class DeepgramRecognitionStream implements RecognitionStream {
  readonly #socket: ListenSocket;
  readonly #finalizeTimeoutMs: number;
  readonly #logger: DriverLogger;
  readonly #keepAlive: NodeJS.Timeout;
  readonly #closed: Promise<void>;
  readonly #chunkBytes: number;
  #held: Buffer[] = [];
  #heldBytes = 0;
  #finals: string[] = [];
  #pending: PendingFinalize[] = [];
  #lastSentAt = Date.now();
  #open = true;
  #closing = false;
  #failure: Error | undefined;

  constructor(socket: ListenSocket, options: { finalizeTimeoutMs: number; chunkBytes: number; logger: DriverLogger; onClosed: () => void }) {
    this.#socket = socket;
    this.#chunkBytes = options.chunkBytes;
    this.#finalizeTimeoutMs = options.finalizeTimeoutMs;
    this.#logger = options.logger;
    socket.on('message', (message) => {
      if (message.type !== 'Results') return;
      const transcript = message.channel.alternatives[0]?.transcript.trim() ?? '';
      if (message.is_final && transcript !== '') this.#finals.push(transcript);
      if (message.from_finalize) this.#settle(1);
    });
    socket.on('error', (err) => this.#logger.warn({ err }, 'deepgram: live stream error'));
    this.#closed = new Promise((resolve) => {
      socket.on('close', (event) => {
        // The SDK reports its own close() as a close event too; handle the first only.
        if (!this.#open) return;
        this.#open = false;
        clearInterval(this.#keepAlive);
        if (!this.#closing) {
          this.#failure = providerError('deepgram', new Error(`the live stream closed (${event.code}${event.reason ? `: ${event.reason}` : ''})`), 503);
          this.#logger.warn({ code: event.code, reason: event.reason }, 'deepgram: live stream closed unexpectedly');
        }
        this.#settle(this.#pending.length);
        options.onClosed();
        resolve();
      });
    });
    this.#keepAlive = setInterval(() => {
      if (this.#open && Date.now() - this.#lastSentAt >= KEEPALIVE_AFTER_MS) this.#send(() => this.#socket.sendKeepAlive({ type: 'KeepAlive' }));
    }, KEEPALIVE_AFTER_MS / 2);
    this.#keepAlive.unref();
  }

  write(audio: Buffer): void {
    if (!this.#open || this.#closing || audio.length === 0) return;
    this.#held.push(audio);
    this.#heldBytes += audio.length;
    if (this.#heldBytes >= this.#chunkBytes) this.#sendHeld();
  }

  finalize(): Promise<string> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (!this.#open || this.#closing) return Promise.resolve(this.#take());
    return new Promise<string>((resolve) => {
      const pending: PendingFinalize = {
        resolve,
        timer: setTimeout(() => {
          this.#pending = this.#pending.filter((p) => p !== pending);
          resolve(this.#take());
        }, this.#finalizeTimeoutMs),
      };
      this.#pending.push(pending);
      this.#sendHeld();
      this.#send(() => this.#socket.sendFinalize({ type: 'Finalize' }));
    });
  }

  async close(): Promise<void> {
    if (this.#closing || !this.#open) return this.#closed;
    this.#sendHeld();
    this.#closing = true;
    // CloseStream makes Deepgram flush final results and Metadata, then close the socket itself.
    this.#send(() => this.#socket.sendCloseStream({ type: 'CloseStream' }));
    const timer = setTimeout(() => this.#socket.close(), CLOSE_TIMEOUT_MS);
    await this.#closed;
    clearTimeout(timer);
  }

  /** Resolves the oldest `count` pending finalizes: the first with the transcript, the rest with ''. */
  #settle(count: number): void {
    for (const pending of this.#pending.splice(0, count)) {
      clearTimeout(pending.timer);
      pending.resolve(this.#take());
    }
  }

  #take(): string {
    const transcript = this.#finals.join(' ');
    this.#finals = [];
    return transcript;
  }

  #sendHeld(): void {
    if (this.#heldBytes === 0) return;
    const chunk = this.#held.length === 1 ? this.#held[0]! : Buffer.concat(this.#held, this.#heldBytes);
    this.#held = [];
    this.#heldBytes = 0;
    this.#send(() => this.#socket.sendMedia(chunk));
  }

  #send(action: () => void): void {
    try {
      action();
      this.#lastSentAt = Date.now();
    } catch (err) {
      // The socket closed under us; the close handler reports it.
      this.#logger.debug({ err }, 'deepgram: send on a closed live stream');
    }
  }
}
