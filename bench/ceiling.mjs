// The ceiling: a bare node:http server on the same routes as the service. It parses the same
// JSON body and answers a reply of the same shape and size (rendered s03 text, progress), but
// has no framework, validation, store or logging. Usage: node bench/ceiling.mjs <port>
import http from 'node:http'
import { TODO_ITEMS } from './workload.mjs'

const PORT = Number(process.argv[2] || process.env.PORT || 8090)
const MARKERS = { pending: '[ ]', in_progress: '[>]', completed: '[x]' }

function render(items) {
  if (items.length === 0) return 'No todos.'
  let done = 0
  const lines = items.map((item) => {
    if (item.status === 'completed') done++
    return `${MARKERS[item.status] ?? '[ ]'} #${item.id}: ${item.text}`
  })
  lines.push(`\n(${done}/${items.length} completed)`)
  return lines.join('\n')
}

function progress(items) {
  const p = {
    total: items.length,
    completed: 0,
    in_progress: 0,
    pending: 0,
    cancelled: 0,
    blocked: 0,
    percent: 0,
  }
  for (const item of items) p[item.status]++
  p.percent = p.total ? Math.floor((100 * p.completed) / p.total) : 0
  return p
}

const canonical = (item) => ({
  id: item.id,
  content: item.text,
  status: item.status,
  blocks: [],
  blocked_by: [],
})

// the GET reply: the same fields as the service's session view
const VIEW = {
  session_id: 'g0',
  dialect: 's03',
  version: 1,
  items: TODO_ITEMS.map(canonical),
  rendered: render(TODO_ITEMS),
  progress: progress(TODO_ITEMS),
  current: canonical(TODO_ITEMS[2]),
  round: 1,
  rounds_since_todo: 0,
  reminder_due: false,
  settings: {},
  ended: null,
  created_at: new Date().toISOString(),
  updated_at: new Date().toISOString(),
}

const ROUTE = /^\/v1\/sessions\/([^/]+)(\/rounds)?$/

function send(res, status, body, headers = {}) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...headers,
  })
  res.end(body)
}

const server = http.createServer((req, res) => {
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
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => {
    let body
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      return send(res, 400, '{"error":"bad json"}')
    }
    let items = []
    const results = []
    for (const call of body.tool_calls) {
      if (call.name !== 'todo') continue
      items = call.input.items
      results.push({
        tool_use_id: call.id,
        name: call.name,
        is_error: false,
        content: render(items),
        structured: null,
      })
    }
    const reply = {
      session_id: sessionId,
      dialect: 's03',
      round: 1,
      version: 1,
      results,
      used_todo: results.length > 0,
      rounds_since_todo: results.length > 0 ? 0 : 1,
      reminder: null,
      notice: null,
      dropped: [],
      progress: progress(items.length ? items : TODO_ITEMS),
    }
    send(res, 200, JSON.stringify(reply))
  })
})
server.keepAliveTimeout = 5000
server.listen(PORT, '127.0.0.1', () => console.log('ready'))
process.on('SIGTERM', () => process.exit(0))
