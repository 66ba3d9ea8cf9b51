// The ceiling: a bare node:http server on the same routes as the service. It parses the same
// JSON body and answers a reply of the same shape and size (rendered s03 text, progress; `{}` to a
// Claude Code hook on /v1/ingest/claude-code, as the service does), but has no framework,
// validation, store or logging. Usage: node bench/ceiling.mjs <port>
import http from 'node:http'
import { roundReply, VIEW } from './replies.mjs'

const PORT = Number(process.argv[2] || process.env.PORT || 8090)
const ROUTE = /^\/v1\/sessions\/([^/]+)(\/rounds)?$/
const HOOK_ROUTE = '/v1/ingest/claude-code'

function send(res, status, body, headers = {}) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...headers,
  })
  res.end(body)
}

/** Reads and parses a JSON body, then answers what `reply(body)` makes of it. */
function withBody(req, res, reply) {
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => {
    let body
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      return send(res, 400, '{"error":"bad json"}')
    }
    send(res, 200, reply(body))
  })
}

const server = http.createServer((req, res) => {
  if (req.url === HOOK_ROUTE && req.method === 'POST') return withBody(req, res, () => '{}')
  const match = ROUTE.exec(req.url)
  if (!match) return send(res, 404, '{}')
  const sessionId = match[1]
  if (req.method === 'GET' && !match[2]) {
    if (req.headers['if-none-match'] === '"1"') {
      res.writeHead(304, { etag: '"1"' })
      return res.end()
    }
    return send(res, 200, JSON.stringify({ ...VIEW, session_id: sessionId }), { etag: '"1"' })
  }
  if (req.method !== 'POST' || !match[2]) return send(res, 405, '{}')
  withBody(req, res, (body) => JSON.stringify(roundReply(sessionId, body)))
})
server.keepAliveTimeout = 5000
server.listen(PORT, '127.0.0.1', () => console.log('ready'))
process.on('SIGTERM', () => process.exit(0))
