import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which receiver addresses a webhook may reach (contract §15): only globally reachable ones, as
 * the IANA special-purpose registries (RFC 6890 and its updates) say. The ranges come from
 * ipaddr.js; what is written here is which of its ranges count as global, and the look inside the
 * IPv6 forms that carry an IPv4 address.
 */

/** Ranges of ipaddr.js that IANA lists as globally reachable. Everything else is refused. */
const GLOBAL_IPV4_RANGES = new Set(['unicast', 'as112', 'amt']);
const GLOBAL_IPV6_RANGES = new Set(['unicast', 'amt', 'as112v6', 'orchid2']);
/** 2000::/3: the only IPv6 space allocated for global unicast; the rest is reserved. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Why `address` is not globally reachable, or null when it is. */
export function nonGlobalReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return GLOBAL_IPV4_RANGES.has(range) ? null : `${address} is in a ${range} range`;
  }
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  const embedded = embeddedIpv4(v6, range);
  if (embedded !== undefined) {
    if (embedded === null) return `${address} is in a ${range} range`;
    const inner = nonGlobalReason(embedded);
    return inner === null ? null : `${address} carries ${inner}`;
  }
  if (!GLOBAL_IPV6_RANGES.has(range)) return `${address} is in a ${range} range`;
  if (!v6.match(GLOBAL_UNICAST_V6)) return `${address} is outside the global unicast space`;
  return null;
}

/**
 * The IPv4 address inside IPv4-mapped, IPv4-translated, NAT64 (64:ff9b::/96) and 6to4 forms;
 * null for a form that is never global (local-use NAT64 64:ff9b:1::/48, Teredo); undefined for an
 * address of no such form.
 */
function embeddedIpv4(address: ipaddr.IPv6, range: string): string | null | undefined {
  const bytes = address.toByteArray();
  const v4 = (offset: number) => bytes.slice(offset, offset + 4).join('.');
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return v4(12);
    case 'rfc6052':
      return address.match(ipaddr.parseCIDR('64:ff9b::/96')) ? v4(12) : null;
    case '6to4':
      return v4(2);
    case 'teredo':
      return null;
    default:
      return undefined;
  }
}

export class AddressRefusedError extends Error {
  readonly code = 'EWEBHOOKADDRESS';
}

/** The first refusal among `addresses`, as an error naming the host, or null when all are global. */
function refusal(host: string, addresses: string[]): AddressRefusedError | null {
  for (const address of addresses) {
    const reason = nonGlobalReason(address);
    if (reason !== null) {
      return new AddressRefusedError(
        `${host} resolves to an address that is not globally reachable (${reason}); set WEBHOOK_ALLOW_PRIVATE=true to allow it`,
      );
    }
  }
  return null;
}

/** The host of a URL as DNS and `net` take it (no brackets around IPv6). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Resolves the URL's host and throws AddressRefusedError when any of its addresses is not
 * globally reachable (a host with several addresses is refused if any one is).
 */
export async function assertGlobalHost(url: URL): Promise<void> {
  const host = hostOf(url);
  const addresses =
    isIP(host) !== 0
      ? [host]
      : (await dns.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  const error = refusal(host, addresses);
  if (error) throw error;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s) agents that refuses non-global addresses at connect time: the addresses
 * checked are the ones the socket connects to, so a DNS answer that changes between the check
 * before the attempt and the connection (DNS rebinding) is caught too. Node skips `lookup` for IP
 * literals: those are checked by assertGlobalHost before the attempt, and cannot change.
 */
export function guardedLookup(
  hostname: string,
  options: LookupOneOptions | LookupAllOptions,
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { ...options, all: true }, (error, entries) => {
    if (error) return callback(error, '');
    const refused = refusal(
      hostname,
      entries.map((entry) => entry.address),
    );
    if (refused) return callback(refused, '');
    if ((options as LookupAllOptions).all) return callback(null, entries);
    const first = entries[0];
    return callback(null, first.address, first.family);
  });
}
