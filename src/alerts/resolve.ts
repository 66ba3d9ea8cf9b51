/**
 * @module alerts/resolve
 * How a webhook's host name becomes addresses, without holding a libuv thread. `dns.lookup`
 * (getaddrinfo) runs on libuv's threadpool of 4, and a DNS server that never answers holds a
 * thread until the system resolver gives up (tens of seconds): four such webhooks would stall
 * every file read, `crypto.pbkdf2` and zlib call of the process. So names are resolved here:
 * 1. `/etc/hosts` first, as the system resolver does (`hosts: files dns`): a name listed there
 *    (`localhost`, a container's or a cluster's host aliases) resolves to its listed addresses,
 *    which are then checked like any other (so `localhost` is refused as loopback);
 * 2. `localhost` and `*.localhost` resolve to loopback even when the file does not list them
 *    (RFC 6761), never through DNS;
 * 3. then DNS through c-ares (`dns.promises.Resolver`: the servers of `/etc/resolv.conf`, A and
 *    AAAA at once), with a per-try timeout, a bounded number of tries, and `cancel()` at the
 *    overall deadline or when the caller's signal aborts. c-ares works on the event loop, not on
 *    the threadpool.
 * Other name sources the system may have (mDNS `.local`, LDAP, NIS in `nsswitch.conf`) are not
 * consulted: a webhook names a host DNS or `/etc/hosts` knows.
 */
import { Resolver as DnsResolver } from 'node:dns/promises'
import { readFile } from 'node:fs/promises'
import { isIP } from 'node:net'

/** An address a name resolved to. */
export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/**
 * Resolves a host name to all its addresses (tests pass their own).
 * @param hostname - a name (not an IP literal)
 * @param options - `signal`: the attempt's deadline; a resolver should stop when it aborts
 */
export type Resolver = (
  hostname: string,
  options?: { signal?: AbortSignal }
) => Promise<ResolvedAddress[]>

/** What `dnsResolver` may be told (tests point it at their own server and file). */
export interface DnsResolverOptions {
  /** DNS servers (`ip` or `ip:port`); default: `/etc/resolv.conf`'s. */
  servers?: string[]
  /** The whole lookup's bound, tries included (default 5000 ms). */
  timeoutMs?: number
  /** c-ares's tries per server (default 2). */
  tries?: number
  /** The hosts file (default `/etc/hosts`; `null`: none). */
  hostsFile?: string | null
}

/** How long a read of the hosts file is reused (it changes rarely; a change shows within this). */
const HOSTS_FILE_TTL_MS = 5000

/**
 * The names of a hosts file and their addresses (`address name alias…` lines, `#` comments).
 * @param text - the file's content
 */
export function parseHostsFile(text: string): Map<string, ResolvedAddress[]> {
  const names = new Map<string, ResolvedAddress[]>()
  for (const line of text.split('\n')) {
    const [address, ...aliases] = line.replace(/#.*/, '').trim().split(/\s+/)
    const family = isIP(address ?? '')
    if (family === 0) continue
    for (const name of aliases) {
      const key = name.toLowerCase()
      const list = names.get(key) ?? []
      if (!list.some((known) => known.address === address)) {
        list.push({ address, family: family === 6 ? 6 : 4 })
      }
      names.set(key, list)
    }
  }
  return names
}

/** The hosts file's names, re-read at most every `HOSTS_FILE_TTL_MS`; an unreadable file is empty. */
function hostsFileReader(path: string | null): () => Promise<Map<string, ResolvedAddress[]>> {
  let cached: { at: number; names: Promise<Map<string, ResolvedAddress[]>> } | null = null
  return () => {
    if (path === null) return Promise.resolve(new Map())
    if (!cached || Date.now() - cached.at > HOSTS_FILE_TTL_MS) {
      const names = readFile(path, 'utf8').then(parseHostsFile, () => new Map())
      cached = { at: Date.now(), names }
    }
    return cached.names
  }
}

const LOCALHOST = /^(?:.+\.)?localhost\.?$/i

/** Both families' answers; a family with no record is empty, any other failure is thrown. */
async function queryBoth(resolver: DnsResolver, hostname: string): Promise<ResolvedAddress[]> {
  const settled = await Promise.allSettled([
    resolver.resolve4(hostname),
    resolver.resolve6(hostname),
  ])
  const addresses: ResolvedAddress[] = []
  const errors: Error[] = []
  settled.forEach((result, i) => {
    if (result.status === 'fulfilled') {
      for (const address of result.value) addresses.push({ address, family: i === 0 ? 4 : 6 })
    } else {
      errors.push(result.reason as Error)
    }
  })
  if (addresses.length > 0) return addresses
  const meaningful = errors.find((error) => (error as { code?: string }).code !== 'ENODATA')
  throw meaningful ?? errors[0] ?? new Error(`${hostname} has no address`)
}

/**
 * A resolver that holds no libuv thread: the hosts file, `localhost`, then DNS through c-ares,
 * cancelled at its deadline or the caller's signal (IPv4 addresses first).
 * @param options - servers, bounds and the hosts file
 */
export function dnsResolver(options: DnsResolverOptions = {}): Resolver {
  const timeoutMs = options.timeoutMs ?? 5000
  const tries = options.tries ?? 2
  const hosts = hostsFileReader(options.hostsFile === undefined ? '/etc/hosts' : options.hostsFile)
  return async (hostname, { signal } = {}) => {
    const name = hostname.toLowerCase()
    const listed = (await hosts()).get(name)
    if (listed) return listed
    if (LOCALHOST.test(name)) {
      return [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ]
    }
    // one channel per lookup: cancel() ends every query of its channel, and no other lookup's
    const resolver = new DnsResolver({ timeout: Math.max(1, Math.ceil(timeoutMs / tries)), tries })
    if (options.servers) resolver.setServers(options.servers)
    const deadline = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])])
    if (deadline.aborted) throw new Error(`lookup of ${hostname} timed out`)
    const cancel = () => resolver.cancel()
    deadline.addEventListener('abort', cancel, { once: true })
    try {
      return await queryBoth(resolver, hostname)
    } catch (error) {
      if (deadline.aborted) {
        throw new Error(`lookup of ${hostname} timed out`, { cause: error })
      }
      throw error
    } finally {
      deadline.removeEventListener('abort', cancel)
    }
  }
}
