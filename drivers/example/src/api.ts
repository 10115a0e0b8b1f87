import { providerError, type HealthResult, type MessageStatus, type OutboundMessage, type SendResult } from '@switchboard/sdk';
import { toMessageStatus } from './status.js';

/** Calls give up after this long, so a hung provider cannot hold a send. */
const TIMEOUT_MS = 10_000;

/** The provider's answer to `POST /v1/messages`. */
interface CreatedMessage {
  id: string;
  status: string;
  segments?: number;
  /** USD, as a decimal string, when the provider prices at send time. */
  price?: string | null;
}

/** A thin client for the provider's REST API, on plain fetch. */
export class ExampleSmsApi {
  readonly #baseUrl: string;
  readonly #apiKey: string;

  constructor(baseUrl: string, apiKey: string) {
    this.#baseUrl = baseUrl.replace(/\/+$/, '');
    this.#apiKey = apiKey;
  }

  /** Sends one SMS; the idempotency key lets the provider drop a retried duplicate. */
  async send(message: OutboundMessage): Promise<SendResult> {
    const created = (await this.#call('POST', '/v1/messages', {
      body: {
        from: message.from,
        to: message.to,
        body: message.body,
        media_urls: message.mediaUrls ?? [],
        ...(message.statusCallbackUrl ? { status_callback: message.statusCallbackUrl } : {}),
      },
      ...(message.idempotencyKey ? { idempotencyKey: message.idempotencyKey } : {}),
    })) as CreatedMessage;
    if (typeof created?.id !== 'string') throw providerError('example', new Error('the answer has no message id'), 502);
    const status: MessageStatus = toMessageStatus(created.status) ?? 'queued';
    const price = created.price == null ? Number.NaN : Math.abs(Number(created.price));
    return {
      externalId: created.id,
      status,
      cost: Number.isFinite(price) ? price : null,
      segments: Number.isInteger(created.segments) && created.segments! > 0 ? created.segments! : 1,
    };
  }

  /** A real call with the configured key; never throws. */
  async health(): Promise<HealthResult> {
    try {
      const account = (await this.#call('GET', '/v1/account')) as { name?: string };
      return { ok: true, message: account?.name ? `Provider account ${account.name} answered.` : 'Provider answered.' };
    } catch (err) {
      return { ok: false, message: err instanceof Error ? err.message : String(err) };
    }
  }

  async #call(method: string, path: string, options: { body?: unknown; idempotencyKey?: string } = {}): Promise<unknown> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#apiKey}`, accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    let response: Response;
    try {
      response = await fetch(`${this.#baseUrl}${path}`, {
        method,
        headers,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw providerError('example', err); // no status: network fault or timeout, retryable
    }
    const text = await response.text();
    if (!response.ok) throw providerError('example', new Error(errorText(text) ?? response.statusText), response.status);
    try {
      return text === '' ? undefined : JSON.parse(text);
    } catch (err) {
      throw providerError('example', err, 502);
    }
  }
}

function errorText(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    return typeof parsed.error === 'string' ? parsed.error : undefined;
  } catch {
    return body.slice(0, 200) || undefined;
  }
}
