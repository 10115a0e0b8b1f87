import { ErrorCodes, SwitchboardError, fromErrorPayload, toErrorPayload, type ErrorPayload } from '@switchboard/sdk';
import { subjectMatches, type Bus, type BusHandler, type RequestOptions, type SubscribeOptions, type Subscription } from './bus.js';

interface Entry {
  readonly pattern: string;
  readonly handler: BusHandler;
  readonly queue: string | undefined;
}

type Reply = { ok: true; data: unknown } | { ok: false; error: ErrorPayload & { retryAfter?: number } };

/**
 * The in-process bus of embedded mode. It keeps the NATS bus's semantics — JSON copies, wildcards,
 * queue groups, first reply wins, timeouts and no-responder errors — so code written against one
 * runs on the other.
 */
export class MemoryBus implements Bus {
  #entries: Entry[] = [];
  #closed = false;
  readonly #rotation = new Map<string, number>();
  readonly #pending = new Set<(reply: Reply) => void>();

  request<T>(subject: string, data: unknown, options: RequestOptions = {}): Promise<T> {
    if (this.#closed) return Promise.reject(closedError());
    const targets = this.#targets(subject);
    if (targets.length === 0) {
      return Promise.reject(new SwitchboardError(ErrorCodes.UNAVAILABLE, `No service answers ${subject}.`, { retryable: true }));
    }
    const payload = encode(data);
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const settle = (reply: Reply) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#pending.delete(settle);
        if (reply.ok) resolve(reply.data as T);
        else reject(fromErrorPayload(reply.error));
      };
      const timeoutMs = options.timeoutMs ?? 5000;
      const timer = setTimeout(
        () => settle({ ok: false, error: { code: ErrorCodes.TIMEOUT, error: `No reply on ${subject} within ${timeoutMs} ms.`, retryable: true } }),
        timeoutMs,
      );
      this.#pending.add(settle);
      for (const entry of targets) {
        invoke(entry.handler, decode(payload), subject).then(settle, () => undefined);
      }
    });
  }

  publish(subject: string, data: unknown): void {
    if (this.#closed) throw closedError();
    const payload = encode(data);
    for (const entry of this.#targets(subject)) {
      invoke(entry.handler, decode(payload), subject).catch(() => undefined);
    }
  }

  subscribe(subject: string, handler: BusHandler, options: SubscribeOptions = {}): Subscription {
    if (this.#closed) throw closedError();
    const entry: Entry = { pattern: subject, handler, queue: options.queue };
    this.#entries = [...this.#entries, entry];
    return {
      unsubscribe: () => {
        this.#entries = this.#entries.filter((e) => e !== entry);
      },
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#entries = [];
    for (const settle of [...this.#pending]) settle({ ok: false, error: toErrorPayload(closedError()) });
  }

  /** Every plain subscriber, plus one member of each queue group, in turn. */
  #targets(subject: string): Entry[] {
    const plain: Entry[] = [];
    const groups = new Map<string, Entry[]>();
    for (const entry of this.#entries) {
      if (!subjectMatches(entry.pattern, subject)) continue;
      if (entry.queue === undefined) plain.push(entry);
      else groups.set(entry.queue, [...(groups.get(entry.queue) ?? []), entry]);
    }
    for (const [queue, members] of groups) {
      const turn = this.#rotation.get(queue) ?? 0;
      this.#rotation.set(queue, turn + 1);
      plain.push(members[turn % members.length]!);
    }
    return plain;
  }
}

async function invoke(handler: BusHandler, data: unknown, subject: string): Promise<Reply> {
  try {
    return { ok: true, data: decode(encode(await handler(data, subject))) };
  } catch (err) {
    const retryAfter = (err as { retryAfter?: number }).retryAfter;
    return { ok: false, error: { ...toErrorPayload(err), ...(retryAfter === undefined ? {} : { retryAfter }) } };
  }
}

function encode(data: unknown): string {
  return JSON.stringify(data ?? null);
}

function decode(text: string): unknown {
  return JSON.parse(text);
}

function closedError(): SwitchboardError {
  return new SwitchboardError(ErrorCodes.UNAVAILABLE, 'The bus is closed.', { retryable: true });
}
