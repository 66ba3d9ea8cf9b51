/**
 * @module alerts/send
 * One delivery attempt: a POST to a checked, pinned address, bounded in time and in what is read
 * back. Node's `http.request` rather than `fetch`: its `lookup` option pins the connection to the
 * address the SSRF check looked at (global `fetch` takes no lookup without an undici dispatcher,
 * a dependency of its own for this one option). A redirect is not followed (a 3xx fails), since
 * following one would reach an address nobody checked.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { checkedAddress, pinnedLookup, TargetRefusedError, type Resolver } from './target.js'

/** What is kept of a receiver's reply: a short excerpt, control characters and markup removed. */
export const REPLY_EXCERPT_CHARS = 200
/** What is read of a reply at most (the rest is discarded unread). */
const REPLY_READ_BYTES = 4096

/** The outcome of one attempt. */
export interface AttemptResult {
  /** A 2xx within the timeout. */
  ok: boolean
  /** The HTTP status, or null when none came (refused, timed out, connection failed). */
  status: number | null
  /** Why it failed, for the delivery log (never a secret). */
  error: string | null
  /** A sanitised excerpt of the reply body. */
  excerpt: string
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
}

/**
 * A reply body as the delivery log may keep it: printable text only, at most 200 characters.
 * @param text - what was read of the reply
 */
export function sanitiseExcerpt(text: string): string {
  return text
    .replace(/<[^>]*>/g, ' ')
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, REPLY_EXCERPT_CHARS)
}

/** Reads at most `REPLY_READ_BYTES` of a reply, then lets the rest go. */
function readExcerpt(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = () => resolve(sanitiseExcerpt(Buffer.concat(chunks).toString('utf8')))
    res.on('data', (chunk: Buffer) => {
      if (size < REPLY_READ_BYTES) chunks.push(chunk.subarray(0, REPLY_READ_BYTES - size))
      size += chunk.length
      if (size >= REPLY_READ_BYTES) {
        res.destroy()
        done()
      }
    })
    res.on('end', done)
    res.on('error', done)
    res.on('close', done)
  })
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
    address = await Promise.race([
      checkedAddress(url, { allowPrivate: options.allowPrivate, resolver: options.resolver }),
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
        void readExcerpt(res).then((excerpt) =>
          settle({
            ok: status >= 200 && status < 300,
            status,
            error: status >= 200 && status < 300 ? null : `HTTP ${status}`,
            excerpt,
            refused: false,
          })
        )
      }
    )
    req.on('error', (error) => {
      settle(failed(deadline.aborted ? `timed out after ${options.timeoutMs} ms` : error.message))
    })
    req.end(options.body)
  })
}
