import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { Cidr } from './networks';

/**
 * Where alert channels may send. By default only public addresses: a channel is an editor-chosen URL the server
 * POSTs to, and without this it reaches the cloud metadata service, the database, and anything else on loopback or
 * the private network. INFERWATCH_ALERT_ALLOW_PRIVATE=1 allows every address; INFERWATCH_ALERT_ALLOWED_NETWORKS
 * allows the ranges it lists (a receiver on 10.1.2.3, say).
 */
export interface TargetPolicy {
  allowPrivate: boolean;
  allowedNetworks: readonly Cidr[];
}

/** Public addresses only: the policy unless the server's environment widens it (README.md, Configuration). */
export const PUBLIC_TARGETS_ONLY: TargetPolicy = { allowPrivate: false, allowedNetworks: [] };

const REFUSED: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['100.64.0.0', 10, 'ipv4', 'carrier-grade NAT'],
  ['192.0.0.0', 24, 'ipv4', 'reserved'],
  ['198.18.0.0', 15, 'ipv4', 'reserved'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  // IPv4-mapped and NAT64 addresses reach IPv4 hosts, private ones included.
  ['::ffff:0:0', 96, 'ipv6', 'IPv4-mapped'],
  ['64:ff9b::', 96, 'ipv6', 'NAT64'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fc00::', 7, 'ipv6', 'private'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];
const refusedLists = REFUSED.map(([address, prefix, family, kind]) => {
  const list = new BlockList();
  list.addSubnet(address, prefix, family);
  return { list, family, kind };
});

const allowedCache = new WeakMap<readonly Cidr[], BlockList>();
function allowedList(networks: readonly Cidr[]): BlockList {
  let list = allowedCache.get(networks);
  if (!list) {
    list = new BlockList();
    for (const n of networks) list.addSubnet(n.address, n.prefix, n.family);
    allowedCache.set(networks, list);
  }
  return list;
}

/** Why `address` (an IP literal) may not be sent to under `policy`, or null when it may. */
export function refusedAddress(address: string, policy: TargetPolicy): string | null {
  const version = isIP(address);
  if (version === 0) return 'not an IP address';
  if (policy.allowPrivate) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (allowedList(policy.allowedNetworks).check(address, family)) return null;
  return refusedLists.find((r) => r.family === family && r.list.check(address, family))?.kind ?? null;
}

/** An IP literal in a URL's host, without IPv6's brackets; null for a name. */
function literalHost(hostname: string): string | null {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : null;
}

/**
 * What a channel's URL can be checked for before any DNS: an IP literal in a refused range (the URL parser has already
 * turned `http://2130706433/` into 127.0.0.1), or localhost. Null when it may be saved; names are checked again, after
 * resolution, at every send.
 */
export function refusedUrl(url: string, policy: TargetPolicy): string | null {
  if (policy.allowPrivate) return null;
  const { hostname } = new URL(url);
  const literal = literalHost(hostname);
  if (literal !== null) {
    const why = refusedAddress(literal, policy);
    return why === null ? null : `${literal} is a ${why} address`;
  }
  const name = hostname.toLowerCase().replace(/\.$/, '');
  // localhost resolves to loopback on every system (RFC 6761): allowed only where 127.0.0.1 is.
  if ((name === 'localhost' || name.endsWith('.localhost')) && refusedAddress('127.0.0.1', policy) !== null) return `${hostname} is a loopback name`;
  return null;
}

/** A send refused before connecting: the target is, or resolved to, an address the policy refuses. */
export class RefusedTargetError extends Error {
  constructor(readonly reason: string) {
    super(`target refused: ${reason}`);
    this.name = 'RefusedTargetError';
  }
}

/** dns.lookup with `all: true`; tests stand in their own. */
export type Resolver = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * A `lookup` for http.request: resolves every address of the name, refuses the lot if any one is refused, and hands
 * the connection exactly the addresses it checked, so a second answer (DNS rebinding) can never be what it connects to.
 */
export function guardedLookup(policy: TargetPolicy, resolve: Resolver = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true } as LookupAllOptions, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      for (const a of addresses) {
        const why = refusedAddress(a.address, policy);
        if (why !== null) return callback(new RefusedTargetError(`${hostname} resolves to a ${why} address`), '', 0);
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
