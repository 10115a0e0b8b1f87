import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, fetch as undiciFetch } from 'undici';

/** What the ranges that are not the public internet are called in a refusal. */
const RANGE_NAMES: Readonly<Record<string, string>> = {
  loopback: 'a loopback address',
  private: 'a private-network address',
  uniqueLocal: 'a private-network address',
  linkLocal: 'a link-local address (where cloud metadata services answer)',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  unspecified: 'the unspecified address',
};

/**
 * Why the server must not call this IP address (v4 or v6, an IPv4-mapped IPv6 one judged as the IPv4
 * it carries), as "<address>, <what it is>", or undefined when it is a public unicast address. Everything outside the public
 * unicast ranges is refused: loopback, private, link-local (169.254.169.254, fd00:ec2::254's
 * unique-local range), carrier-grade NAT, multicast, unspecified, and the reserved and special ranges
 * (documentation, benchmarking, 6to4, Teredo, NAT64), which either reach nothing or tunnel elsewhere.
 */
export function forbiddenAddress(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return `${address}, not an IP address`;
  const parsed = ipaddr.process(address); // an IPv4-mapped IPv6 address becomes its IPv4
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  return `${parsed.toString()}, ${RANGE_NAMES[range] ?? `an address of a reserved range (${range})`}`;
}

/** The IP address a URL's host names literally (brackets of an IPv6 host removed), or undefined for a name. */
function literalAddress(hostname: string): string | undefined {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(host) === 0 ? undefined : host;
}

/**
 * Why a callback URL must not be saved, judged without a DNS query, or undefined: a host that is an
 * address outside the public internet, or a `localhost` name (RFC 6761: always loopback). The WHATWG
 * URL parser has already turned integer, octal and hex IPv4 forms (`http://2130706433/`) into dotted
 * ones. Names are judged again at connect time, by the addresses they resolve to then.
 */
export function forbiddenCallbackHost(url: URL): string | undefined {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return `${url.hostname}, a loopback name`;
  const address = literalAddress(url.hostname);
  return address === undefined ? undefined : forbiddenAddress(address);
}

const PRIVATE_HINT = 'not called, as CALLBACK_ALLOW_PRIVATE_NETWORKS is off';

/** A callback refused before any connection: the address is not one the server may call. */
export class ForbiddenAddressError extends Error {
  readonly code = 'FORBIDDEN_ADDRESS';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
/** dns.lookup's shape, with every address asked for. */
export type AllAddressesLookup = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * A socket `lookup` that resolves the name and refuses it when any address it resolves to is
 * forbidden: checked on the address the connection is about to use, so a name that resolved to a
 * public address when it was saved and to an internal one now (DNS rebinding) is still refused.
 */
export function guardedLookup(lookup: AllAddressesLookup = dnsLookup): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const refused = addresses.map((a) => forbiddenAddress(a.address)).find((why) => why !== undefined);
      if (refused) return callback(new ForbiddenAddressError(`${hostname} resolves to ${refused}: ${PRIVATE_HINT}`), '');
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} resolves to no address`), { code: 'ENOTFOUND' }), '');
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** How the server reaches the URLs agents give it: anywhere, or the public internet only. */
export interface CallbackReachOptions {
  /** Private, loopback, link-local... addresses may be called (CALLBACK_ALLOW_PRIVATE_NETWORKS). */
  readonly allowPrivateNetworks: boolean;
  /** How names are resolved (tests give their own; default dns.lookup). */
  readonly lookup?: AllAddressesLookup;
}

/** The fetch a callback is posted with. */
export type CallbackFetch = (url: string, init: RequestInit) => Promise<Response>;

/**
 * The fetch for URLs agents give: the global one when private networks are allowed; else one that
 * refuses a literal forbidden host before connecting and resolves names through {@link guardedLookup}.
 */
export function callbackFetch(options: CallbackReachOptions): CallbackFetch {
  if (options.allowPrivateNetworks) return (url, init) => fetch(url, init);
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(options.lookup) } });
  return async (url, init) => {
    const address = literalAddress(new URL(url).hostname);
    const refused = address === undefined ? undefined : forbiddenAddress(address);
    if (refused) throw new ForbiddenAddressError(`${refused}: ${PRIVATE_HINT}`);
    return (await undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher })) as unknown as Response;
  };
}
