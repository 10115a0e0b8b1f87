import proxyAddr from 'proxy-addr';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';

/** The client's address of a request, from the socket's peer and its X-Forwarded-For header. */
export type ClientAddress = (peer: string, forwardedFor: string | undefined) => string;

/** Trusts no proxy: the socket's peer is the client. */
export const peerIsClient: ClientAddress = (peer) => peer;

/**
 * The client address as the trusted proxies tell it (TRUSTED_PROXIES: IPs, CIDRs, or proxy-addr's
 * `loopback`, `linklocal`, `uniquelocal`). X-Forwarded-For is read only when the peer is a trusted
 * proxy, from the right: the first entry that is not a trusted proxy is the client, so what a client
 * writes in the header itself is never believed. Throws VALIDATION_FAILED on an entry that is not an
 * address or range.
 */
export function clientAddress(trustedProxies: string): ClientAddress {
  const entries = trustedProxies
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return peerIsClient;
  let trust: (address: string, hop: number) => boolean;
  try {
    trust = proxyAddr.compile(entries);
  } catch (err) {
    throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `Setting TRUSTED_PROXIES: ${(err as Error).message}; give IPs or CIDRs, comma-separated.`);
  }
  return (peer, forwardedFor) => {
    if (!forwardedFor || !trust(peer, 0)) return peer;
    return proxyAddr({ headers: { 'x-forwarded-for': forwardedFor }, socket: { remoteAddress: peer } } as never, trust);
  };
}
