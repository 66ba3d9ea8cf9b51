/**
 * @module alerts/send
 * One delivery attempt: a POST to a checked, pinned address, bounded in time. Node's
 * `http.request` rather than `fetch`: its `lookup` option pins the connection to the address the
 * SSRF check looked at (global `fetch` takes no lookup without an undici dispatcher, a dependency
 * of its own for this one option). A redirect is not followed (a 3xx fails), since following one
 * would reach an address nobody checked. Nothing of a reply but its status is read: the body is
 * never read, kept or shown, so a webhook cannot be used to read another service's answers.
 */
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { checkedAddress, pinnedLookup, TargetRefusedError, type Resolver } from './target.js'

/** The outcome of one attempt. */
export interface AttemptResult {
  /** A 2xx within the timeout. */
  ok: boolean
  /** The HTTP status, or null when none came (refused, timed out, connection failed). */
  status: number | null
  /** Why it failed, for the delivery log (never a secret, never the reply's body). */
  error: string | null
  /** Always empty: no part of a reply's body is kept (SPEC: never the target's reply body). */
  excerpt: ''
  /** Whether the target was refused for where it points (no retry can help until it changes). */
  refused: boolean
}

/** What an attempt needs. */
export interface AttemptOptions {
  url: string
  headers: Record<string, string>
  body: string
  timeoutMs: number
  allowPrivate: boolean
  resolver?: Resolver
  /** This machine's addresses (tests pass their own; default `os.networkInterfaces()`). */
  localAddresses?: () => readonly string[]
}

/**
 * Sends one attempt. Never throws: every failure is a result.
 * @param options - the target, headers, body and bounds
 */
export async function attemptDelivery(options: AttemptOptions): Promise<AttemptResult> {
  const url = new URL(options.url)
  const failed = (error: string, refused = false): AttemptResult => ({
    ok: false,
    status: null,
    error,
    excerpt: '',
    refused,
  })
  let address
  const deadline = AbortSignal.timeout(options.timeoutMs)
  try {
    // the resolver stops at the deadline; the race bounds one that does not listen (a test's)
    address = await Promise.race([
      checkedAddress(url, {
        allowPrivate: options.allowPrivate,
        resolver: options.resolver,
        localAddresses: options.localAddresses,
        signal: deadline,
      }),
      new Promise<never>((_, reject) =>
        deadline.addEventListener('abort', () => reject(new Error('DNS lookup timed out')))
      ),
    ])
  } catch (error) {
    if (error instanceof TargetRefusedError) return failed(`refused: ${error.message}`, true)
    return failed(`DNS: ${(error as Error).message}`)
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise<AttemptResult>((resolve) => {
    let settled = false
    const settle = (result: AttemptResult) => {
      if (settled) return
      settled = true
      resolve(result)
    }
    const req = send(
      url,
      {
        method: 'POST',
        headers: {
          ...options.headers,
          'content-length': String(Buffer.byteLength(options.body)),
        },
        lookup: pinnedLookup(address),
        signal: deadline,
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0
        // the status is the answer: the body is not read (the connection is not reused)
        res.destroy()
        settle({
          ok: status >= 200 && status < 300,
          status,
          error: status >= 200 && status < 300 ? null : `HTTP ${status}`,
          excerpt: '',
          refused: false,
        })
      }
    )
    req.on('error', (error) => {
      settle(failed(deadline.aborted ? `timed out after ${options.timeoutMs} ms` : error.message))
    })
    req.end(options.body)
  })
}
