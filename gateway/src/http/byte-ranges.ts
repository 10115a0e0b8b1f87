import { open } from 'node:fs/promises';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import parseRange from 'range-parser';
import { errorResult } from './errors.js';
import type { HttpResult } from './types.js';

/**
 * A file as the answer to a GET that may carry `Range: bytes=…` (RFC 9110 §14): 200 with the whole
 * file, 206 with the one range asked for and its Content-Range (a suffix `-n` longer than the
 * file is the whole file), 416 with a JSON error body when the range starts past the end. A
 * malformed header, another unit or several ranges get the whole file (a server may ignore Range).
 * Only the bytes answered are read. Undefined when the file cannot be read.
 */
export async function fileByRange(path: string, range: string | undefined, headers: Readonly<Record<string, string>>): Promise<HttpResult | undefined> {
  const file = await open(path).catch(() => undefined);
  if (!file) return undefined;
  try {
    const { size } = await file.stat();
    const base = { ...headers, 'accept-ranges': 'bytes' };
    const asked = range?.startsWith('bytes=') ? parseRange(size, wholeForLongSuffixes(range, size), { combine: true }) : undefined;
    if (asked === -1) {
      // The error body is JSON: the file's own headers (its audio type) must not describe it.
      const { body } = errorResult(new SwitchboardError(ErrorCodes.BAD_REQUEST, `The range ${range} starts past the end of the file's ${size} bytes.`));
      return { status: 416, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'accept-ranges': 'bytes', 'content-range': `bytes */${size}` }, body };
    }
    const one = Array.isArray(asked) && asked.type === 'bytes' && asked.length === 1 ? asked[0]! : undefined;
    const [start, end] = one ? [one.start, one.end] : [0, size - 1];
    const body = Buffer.alloc(end - start + 1);
    const { bytesRead } = await file.read(body, 0, body.byteLength, start);
    if (!one) return { status: 200, headers: base, body: body.subarray(0, bytesRead) };
    return { status: 206, headers: { ...base, 'content-range': `bytes ${start}-${start + bytesRead - 1}/${size}` }, body: body.subarray(0, bytesRead) };
  } finally {
    await file.close();
  }
}

/**
 * `bytes=-n` with n over the file's size selects the whole file (RFC 9110 §14.1.3), but range-parser
 * drops it as unsatisfiable (its start would be negative): such a suffix is spelled `0-` before parsing.
 */
function wholeForLongSuffixes(range: string, size: number): string {
  return range.replace(/([=,])[ \t]*-[ \t]*(\d+)[ \t]*(?=,|$)/g, (spec, before: string, length: string) => (size > 0 && Number(length) > size ? `${before}0-` : spec));
}
