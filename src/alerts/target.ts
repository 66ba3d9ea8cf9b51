/**
 * @module alerts/target
 * Where a webhook may point. A URL must be http(s); a target in a loopback, private, link-local,
 * shared, multicast or metadata range is refused unless `WEBHOOK_ALLOW_PRIVATE=true`, checked
 * after DNS resolution at every attempt. Every address a name resolves to is checked (one bad
 * address refuses the target), and the connection goes to the address that was checked
 * (`pinnedLookup`), so a DNS answer cannot change between the check and the connect (rebinding).
 * Node's `net.BlockList` holds the ranges; it also matches IPv4-mapped IPv6 addresses
 * (`::ffff:127.0.0.1`) against the IPv4 rules.
 */
import { lookup as dnsLookup } from 'node:dns/promises'
import { BlockList, isIP, type LookupFunction } from 'node:net'

/** Ranges no webhook may reach unless private targets are allowed. */
const PRIVATE_RANGES: readonly [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'], // "this network"
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'], // unique local (and fd00:ec2::254, a metadata address)
  ['fe80::', 10, 'ipv6'], // link-local
  ['ff00::', 8, 'ipv6'], // multicast
]

const BLOCKED = new BlockList()
for (const [network, prefix, family] of PRIVATE_RANGES) BLOCKED.addSubnet(network, prefix, family)

/** NAT64's well-known prefix: the IPv4 address in its last 32 bits is what is reached. */
const NAT64 = /^64:ff9b::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i

/**
 * Whether an IP address is in a range a webhook may not reach by default.
 * @param address - an IPv4 or IPv6 address
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return BLOCKED.check(address, 'ipv4')
  if (family !== 6) return true
  if (BLOCKED.check(address, 'ipv6')) return true
  const nat64 = NAT64.exec(new URL(`http://[${address}]`).hostname.slice(1, -1))
  if (nat64) {
    const [high, low] = [parseInt(nat64[1], 16), parseInt(nat64[2], 16)]
    return BLOCKED.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4')
  }
  return false
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

/** An address a name resolved to. */
export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/** Resolves a host name to all its addresses (tests pass their own). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>

/** The system resolver (getaddrinfo, as a connect would use), every address. */
export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }))

/** A target refused for where it points. */
export class TargetRefusedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'TargetRefusedError'
  }
}

/**
 * The address to connect to for a URL, checked: an IP literal as it is, a name through the
 * resolver, every address it resolves to in an allowed range.
 * @param url - the webhook's URL (already checked by `urlProblem`)
 * @param options - `allowPrivate` (`WEBHOOK_ALLOW_PRIVATE`) and the resolver
 * @throws TargetRefusedError naming the refused address; the resolver's error when it fails
 */
export async function checkedAddress(
  url: URL,
  options: { allowPrivate: boolean; resolver?: Resolver }
): Promise<ResolvedAddress> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  const literal = isIP(host)
  const addresses: ResolvedAddress[] = literal
    ? [{ address: host, family: literal === 6 ? 6 : 4 }]
    : await (options.resolver ?? systemResolver)(host)
  if (addresses.length === 0) throw new TargetRefusedError(`${host} resolves to no address`)
  if (!options.allowPrivate) {
    const refused = addresses.find(({ address }) => isPrivateAddress(address))
    if (refused) {
      throw new TargetRefusedError(
        `${host} resolves to ${refused.address}, a loopback, private, link-local or metadata address (WEBHOOK_ALLOW_PRIVATE=true allows it)`
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
