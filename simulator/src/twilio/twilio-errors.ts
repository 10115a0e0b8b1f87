import { STATUS_CODES } from 'node:http';
import type { SimResponse } from '../http/sim-response.js';
import { twilioHeaders } from './twilio-format.js';

/** Twilio's REST error body: `{code, message, more_info, status}`. */
export function twilioError(status: number, code: number, message: string, extra?: Record<string, unknown>): SimResponse {
  return {
    status,
    headers: twilioHeaders(),
    json: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status, ...extra },
  };
}

export function twilioAuthenticationError(): SimResponse {
  const response = twilioError(401, 20003, 'Authenticate', { detail: 'Your AccountSid or AuthToken was incorrect.' });
  response.headers = { ...response.headers, 'www-authenticate': 'Basic realm="Twilio API"' };
  return response;
}

export function twilioNotFound(path: string): SimResponse {
  return twilioError(404, 20404, `The requested resource ${path} was not found`);
}

export function twilioMethodNotAllowed(method: string): SimResponse {
  return twilioError(405, 20004, `Method not allowed: ${method}`);
}

const FAULT_CODES: Record<number, [number, string]> = {
  429: [20429, 'Too Many Requests'],
  500: [20500, 'Internal Server Error'],
  502: [20500, 'Bad Gateway'],
  503: [20503, 'Service Unavailable'],
};

/** An injected fault in Twilio's shape; 429 carries Retry-After. */
export function twilioFault(status: number, retryAfterSeconds: number): SimResponse {
  const [code, message] = FAULT_CODES[status] ?? [status >= 500 ? 20500 : 20001, STATUS_CODES[status] ?? 'Error'];
  const response = twilioError(status, code, message);
  if (status === 429) response.headers = { ...response.headers, 'retry-after': String(retryAfterSeconds) };
  return response;
}
