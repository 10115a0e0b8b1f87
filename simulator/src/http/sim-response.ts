import type { ServerResponse } from 'node:http';

/** A provider handler's answer: plain data, written to the socket by `writeSimResponse`. */
export interface SimResponse {
  status: number;
  headers?: Record<string, string>;
  /** JSON body (serialised with `application/json; charset=utf-8`). */
  json?: unknown;
  text?: string;
  binary?: Buffer;
  /** Send the body with chunked transfer encoding (streaming endpoints). */
  chunked?: boolean;
}

export function jsonResponse(status: number, json: unknown, headers?: Record<string, string>): SimResponse {
  return headers ? { status, json, headers } : { status, json };
}

const CHUNK_BYTES = 8192;

export function writeSimResponse(res: ServerResponse, response: SimResponse): void {
  if (res.destroyed || res.headersSent) return;
  let payload: Buffer | string = '';
  let contentType: string | undefined;
  if (response.binary !== undefined) {
    payload = response.binary;
    contentType = 'application/octet-stream';
  } else if (response.text !== undefined) {
    payload = response.text;
    contentType = 'text/plain; charset=utf-8';
  } else if (response.json !== undefined) {
    payload = JSON.stringify(response.json);
    contentType = 'application/json; charset=utf-8';
  }
  const headers: Record<string, string | number> = contentType ? { 'content-type': contentType } : {};
  if (response.headers) Object.assign(headers, response.headers);
  if (response.chunked && Buffer.isBuffer(payload)) {
    res.writeHead(response.status, headers);
    for (let offset = 0; offset < payload.length; offset += CHUNK_BYTES) res.write(payload.subarray(offset, offset + CHUNK_BYTES));
    res.end();
    return;
  }
  headers['content-length'] = Buffer.byteLength(payload);
  res.writeHead(response.status, headers);
  res.end(payload);
}
