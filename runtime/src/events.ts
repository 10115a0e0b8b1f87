import { EventEmitter } from 'node:events';
import type { Channel } from '@switchboard/sdk';

/** What the runtime reports as it works; the gateway turns these into metrics. */
export interface RuntimeEventMap {
  message: [{ channel: Channel; direction: 'inbound' | 'outbound'; status: string }];
  webhookRejected: [{ provider: string; reason: string }];
  deadLetter: [{ agentId: string; reason: string }];
  usage: [{ channel: Channel; action: string; cost: number }];
  limitRejected: [{ agentId: string; limit: string }];
  /** Seconds a voice frame waited: inbound arrival to processed. */
  frameDelay: [number];
}

/** The runtime's event stream. */
export class RuntimeEvents extends EventEmitter<RuntimeEventMap> {}
