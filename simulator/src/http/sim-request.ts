import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** Form fields as Twilio sends them; a repeated field (MediaUrl) becomes an array. */
export type FormFields = Record<string, string | string[]>;

/** A request as a provider handler sees it: plain data, no socket. */
export interface SimRequest {
  method: string;
  /** Path below the provider's prefix, e.g. `/2010-04-01/Accounts/AC.../Messages.json`. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Parsed form fields or JSON value; the text when neither; undefined when empty. */
  body: unknown;
  /** Set when the body claimed to be JSON and was not. */
  bodyError?: string;
}

/** Thrown when a body exceeds the limit; answered 413. */
export class BodyTooLargeError extends Error {
  constructor(limit: number) {
    super(`Request body exceeds ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLargeError(limit));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function parseForm(text: string): FormFields {
  const fields: FormFields = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const existing = fields[key];
    if (existing === undefined) fields[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else fields[key] = [existing, value];
  }
  return fields;
}

export function parseBody(contentType: string | undefined, raw: Buffer): { body: unknown; error?: string } {
  if (raw.length === 0) return { body: undefined };
  const text = raw.toString('utf8');
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('application/x-www-form-urlencoded')) return { body: parseForm(text) };
  if (type.includes('json') || (type === '' && /^\s*[[{]/.test(text))) {
    try {
      return { body: JSON.parse(text) as unknown };
    } catch (err) {
      return { body: text, error: (err as Error).message };
    }
  }
  return { body: text };
}

/** decodeURIComponent that leaves malformed escapes as they are instead of throwing. */
export function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
