import { ErrorCodes } from '@switchboard/sdk';
import { fail } from '../http/errors.js';

/** Loopback names: a request that names them came to this machine under its own name. */
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The host names this server answers to, for DNS-rebinding protection on the MCP routes: a page that
 * points its own name at this server's address makes the browser send that name in Host and Origin,
 * so both must name this server. Names are compared without their port; entries may be host names,
 * `host:port`, bracketed IPv6 addresses or URLs.
 */
export class ServerNames {
  readonly #names = new Set<string>();

  constructor(names: Iterable<string> = []) {
    this.add(...LOOPBACK, ...names);
  }

  /** Adds names (the public base URL once it is known, an allow-list). Blank and malformed entries are ignored. */
  add(...names: string[]): this {
    for (const name of names) {
      const hostname = name.trim() && hostnameOf(name.trim());
      if (hostname) this.#names.add(hostname);
    }
    return this;
  }

  /** True when `hostname` (lower case, IPv6 in brackets) is one of this server's names. */
  has(hostname: string): boolean {
    return this.#names.has(hostname);
  }

  /** Throws FORBIDDEN unless Host names this server and Origin, when sent, does too. */
  check(headers: Readonly<Record<string, string>>): void {
    const host = headers.host === undefined ? undefined : hostnameOf(headers.host);
    if (!host || !this.#names.has(host)) {
      fail(ErrorCodes.FORBIDDEN, 'The Host header does not name this server; add the name to ALLOWED_HOSTS if it is one of its own.');
    }
    const origin = headers.origin;
    if (origin === undefined) return;
    const originHost = hostnameOf(origin);
    if (!originHost || !this.#names.has(originHost)) {
      fail(ErrorCodes.FORBIDDEN, 'The Origin header does not name this server; add the name to ALLOWED_HOSTS if it is one of its own.');
    }
  }
}

const AUTHORITY = /^(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The host name in a Host value (`name[:port]`) or in a URL such as an Origin, lower case, IPv6 in
 * brackets; undefined when malformed, when it carries user info, or for an opaque origin (`null`).
 */
function hostnameOf(value: string): string | undefined {
  const isUrl = value.includes('://');
  if (!isUrl && !AUTHORITY.test(value)) return undefined;
  try {
    const url = new URL(isUrl ? value : `http://${value}`);
    if (url.username || url.password) return undefined;
    return url.hostname.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}
