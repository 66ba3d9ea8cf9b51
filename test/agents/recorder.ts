/**
 * A recorder in place of the agent-todos service: it keeps every request (path, headers, body) and
 * answers like the SPEC's ingest routes do (`200 {}` for Claude Code hooks, else
 * `{session_id, version, applied, ignored}`), or with a status the test chooses.
 */
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RecordedRequest {
  method: string
  /** Path and query, e.g. `/v1/ingest/codex?session_id=codex%3A…`. */
  path: string
  headers: Record<string, string | string[] | undefined>
  /** The body as text. */
  body: string
  at: number
}

export interface Recorder {
  url: string
  port: number
  requests: RecordedRequest[]
  /** Requests whose path starts with `prefix`. */
  posts(prefix?: string): RecordedRequest[]
  /** Decide the next replies: return a status (and optional body) or undefined for the default. */
  respond(fn: (req: RecordedRequest) => { status: number; body?: unknown } | undefined): void
  close(): Promise<void>
}

/** The session id a stream body names (first line that carries one), for the recorder's replies. */
function sessionOf(path: string, body: string): string {
  const query = new URL(path, 'http://x').searchParams.get('session_id')
  if (query) return query
  for (const line of body.split('\n')) {
    try {
      const value = JSON.parse(line) as Record<string, unknown>
      if (typeof value.thread_id === 'string') return `codex:${value.thread_id}`
      if (typeof value.session_id === 'string') {
        const prefix = path.includes('gemini')
          ? 'gemini'
          : path.includes('codex')
            ? 'codex'
            : 'claude'
        return `${prefix}:${value.session_id}`
      }
    } catch {
      // not one JSON line
    }
  }
  return 'unknown'
}

/** Starts a recorder on a free port of 127.0.0.1. */
export async function startRecorder(): Promise<Recorder> {
  const requests: RecordedRequest[] = []
  let decide: (req: RecordedRequest) => { status: number; body?: unknown } | undefined = () =>
    undefined
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const record: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '/',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      at: Date.now(),
    }
    requests.push(record)
    const custom = decide(record)
    if (custom) {
      res.writeHead(custom.status, { 'content-type': 'application/json' })
      res.end(custom.body === undefined ? '{}' : JSON.stringify(custom.body))
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    if (record.path.startsWith('/v1/ingest/claude-code')) res.end('{}')
    else if (record.path.startsWith('/v1/ingest/'))
      res.end(
        JSON.stringify({
          session_id: sessionOf(record.path, record.body),
          version: 0,
          applied: 0,
          ignored: 0,
        })
      )
    else res.end('{}')
  }
  const server = createServer((req, res) => void handle(req, res))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    posts: (prefix = '/') =>
      requests.filter((r) => r.method === 'POST' && r.path.startsWith(prefix)),
    respond(fn) {
      decide = fn
    },
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close').catch(() => {})
    },
  }
}
