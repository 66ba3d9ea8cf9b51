/**
 * @module alerts/target
 * Where a webhook may point. A URL must be http(s); a target in a loopback, private, link-local,
 * shared, multicast, reserved or metadata range, in an IPv6 range that embeds an IPv4 address
 * (IPv4-compatible, -mapped and -translated, NAT64, 6to4, Teredo) or the deprecated site-local
 * range, or at an address of one of this machine's own interfaces (its LAN or public address, where
 * its other services listen) is refused unless `WEBHOOK_ALLOW_PRIVATE=true`, checked after name
 * resolution at every attempt. Every address a name resolves to is checked (one bad address
 * refuses the target), and the connection goes to the address that was checked (`pinnedLookup`),
 * so a DNS answer cannot change between the check and the connect (rebinding). Names resolve
 * through `alerts/resolve` (the hosts file, then c-ares: no libuv thread held).
 * Node's `net.BlockList` holds the ranges; it also matches IPv4-mapped IPv6 addresses
 * (`::ffff:127.0.0.1`) against the IPv4 rules.
 */
import { networkInterfaces } from 'node:os'
import { BlockList, isIP, type LookupFunction } from 'node:net'
import { dnsResolver, type ResolvedAddress, type Resolver } from './resolve.js'

export type { ResolvedAddress, Resolver } from './resolve.js'

/** IPv4 ranges no webhook may reach unless private targets are allowed. */
const PRIVATE_IPV4: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
]

/**
 * IPv6 ranges no webhook may reach unless private targets are allowed. The IPv4-embedding ones
 * are refused whole: what they reach depends on a translator or relay, not on the address alone.
 * They sit in a BlockList of their own, checked for IPv6 addresses only, because a BlockList
 * also matches every IPv4 address against an `::ffff:0:0/96` rule.
 */
const PRIVATE_IPV6: readonly [string, number][] = [
  ['::', 96], // unspecified, loopback, IPv4-compatible (::a.b.c.d)
  ['::ffff:0:0', 96], // IPv4-mapped (::ffff:a.b.c.d)
  ['::ffff:0:0:0', 96], // IPv4-translated (::ffff:0:a.b.c.d)
  ['64:ff9b::', 96], // NAT64, well-known prefix
  ['64:ff9b:1::', 48], // NAT64, local-use prefix
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo
  ['2002::', 16], // 6to4
  ['fc00::', 7], // unique local (and fd00:ec2::254, a metadata address)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed inside some networks)
  ['ff00::', 8], // multicast
]

const BLOCKED_IPV4 = new BlockList()
for (const [network, prefix] of PRIVATE_IPV4) BLOCKED_IPV4.addSubnet(network, prefix, 'ipv4')
const BLOCKED_IPV6 = new BlockList()
for (const [network, prefix] of PRIVATE_IPV6) BLOCKED_IPV6.addSubnet(network, prefix, 'ipv6')

/**
 * Whether an IP address is in a range a webhook may not reach by default.
 * @param address - an IPv4 or IPv6 address
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return BLOCKED_IPV4.check(address, 'ipv4')
  if (family !== 6) return true
  return BLOCKED_IPV6.check(address, 'ipv6') || BLOCKED_IPV4.check(address, 'ipv6')
}

/** The addresses of this machine's interfaces now (read at each check: they change, e.g. DHCP). */
export type LocalAddresses = () => readonly string[]

/** `os.networkInterfaces()`'s addresses, every interface, both families. */
export const machineAddresses: LocalAddresses = () =>
  Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((info) => info.address))

/**
 * Whether an address is one of this machine's own (in any of its spellings, IPv4-mapped too).
 * @param address - an IPv4 or IPv6 address
 * @param local - the machine's addresses
 */
export function isLocalAddress(address: string, local: readonly string[]): boolean {
  const family = isIP(address)
  if (family === 0) return false
  const own = new BlockList()
  for (const known of local) {
    const knownFamily = isIP(known)
    if (knownFamily !== 0) own.addAddress(known, knownFamily === 6 ? 'ipv6' : 'ipv4')
  }
  return own.check(address, family === 6 ? 'ipv6' : 'ipv4')
}

/** Why a webhook URL is unusable, or null. Checks the form only (no DNS). */
export function urlProblem(text: string): string | null {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'must be an absolute http(s) URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL'
  if (url.hostname === '') return 'must name a host'
  if (url.username || url.password) {
    return 'must not carry credentials (user:password@): put a token in the path or query'
  }
  return null
}

/** The resolver every check uses unless told another: the hosts file, then c-ares DNS. */
export const defaultResolver: Resolver = dnsResolver()

/** A target refused for where it points. */
export class TargetRefusedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'TargetRefusedError'
  }
}

/** What `checkedAddress` is told. */
export interface TargetCheck {
  /** `WEBHOOK_ALLOW_PRIVATE`. */
  allowPrivate: boolean
  /** How names resolve (default `defaultResolver`). */
  resolver?: Resolver
  /** This machine's addresses (default `machineAddresses`, read at each check). */
  localAddresses?: LocalAddresses
  /** The attempt's deadline: the lookup stops when it aborts. */
  signal?: AbortSignal
}

/**
 * The address to connect to for a URL, checked: an IP literal as it is, a name through the
 * resolver, every address it resolves to in an allowed range and none of this machine's own.
 * @param url - the webhook's URL (already checked by `urlProblem`)
 * @param options - `allowPrivate`, the resolver, the machine's addresses and the deadline
 * @throws TargetRefusedError naming the refused address; the resolver's error when it fails
 */
export async function checkedAddress(url: URL, options: TargetCheck): Promise<ResolvedAddress> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  const literal = isIP(host)
  const addresses: ResolvedAddress[] = literal
    ? [{ address: host, family: literal === 6 ? 6 : 4 }]
    : await (options.resolver ?? defaultResolver)(host, { signal: options.signal })
  if (addresses.length === 0) throw new TargetRefusedError(`${host} resolves to no address`)
  if (!options.allowPrivate) {
    const allow = ' (WEBHOOK_ALLOW_PRIVATE=true allows it)'
    const refused = addresses.find(({ address }) => isPrivateAddress(address))
    if (refused) {
      throw new TargetRefusedError(
        `${host} resolves to ${refused.address}, a loopback, private, link-local, metadata or IPv4-embedding address${allow}`
      )
    }
    const local = (options.localAddresses ?? machineAddresses)()
    const own = addresses.find(({ address }) => isLocalAddress(address, local))
    if (own) {
      throw new TargetRefusedError(
        `${host} resolves to ${own.address}, an address of this machine${allow}`
      )
    }
  }
  return addresses[0]
}

/**
 * A `lookup` for `http.request` that answers with the checked address whatever it is asked, so
 * the connection goes where the check looked.
 * @param checked - the address `checkedAddress` returned
 */
export function pinnedLookup(checked: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      ;(callback as (err: null, addresses: ResolvedAddress[]) => void)(null, [checked])
    } else {
      callback(null, checked.address, checked.family)
    }
  }
}
