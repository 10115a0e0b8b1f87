import type { RuntimeEvents } from '../events.js';
import type { Logger } from '../logger.js';
import { AudioWorkerPool } from './audio-worker-pool.js';

/** The audio worker pool of stream-mode calls, started on first use and closed with its process. */
export class AudioOnDemand {
  #pool: AudioWorkerPool | undefined;

  constructor(
    private readonly events: RuntimeEvents,
    private readonly logger: Logger,
  ) {}

  get(): AudioWorkerPool {
    this.#pool ??= new AudioWorkerPool({
      onFrameDelay: (seconds) => this.events.emit('frameDelay', seconds),
      onError: (err) => this.logger.error({ err }, 'audio worker failed'),
    });
    return this.#pool;
  }

  async close(): Promise<void> {
    await this.#pool?.close();
  }
}
