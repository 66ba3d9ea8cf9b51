// The framework floor: the fixed stack alone, @hono/node-server + @hono/zod-openapi, on the
// service's routes with the service's own compiled request schemas (session id, round body,
// Claude Code hook input), answering what the ceiling answers (bench/replies.mjs; `{}` to a
// hook). No auth, store, logging, metrics or security headers: what is left between it and the
// service is the service's own work.
// With a store (`sqlite`, `sqlite-nockpt` or `redis`), each hook delivery also makes the one
// durable write it cannot do without, in its cheapest form (bench/floor-store.mjs): what this
// machine gives a delivery that is stored at all, at each load.
// Usage: node bench/floor.mjs <port> <dist directory> [sqlite|sqlite-nockpt|redis]
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { serve } from '@hono/node-server'
import { createRoute, OpenAPIHono } from '@hono/zod-openapi'
import { openFloorStore } from './floor-store.mjs'
import { roundReply, VIEW } from './replies.mjs'

const PORT = Number(process.argv[2] || 8091)
const DIST = path.resolve(process.argv[3] || 'dist')
const store = await openFloorStore(process.argv[4])
const { RoundRequest, SessionIdParam } = await import(
  pathToFileURL(path.join(DIST, 'http', 'schemas.js')).href
)
const { ClaudeHookInput } = await import(
  pathToFileURL(path.join(DIST, 'agents', 'claude-code.js')).href
)

const app = new OpenAPIHono()
app.openapi(
  createRoute({
    method: 'post',
    path: '/v1/sessions/{session_id}/rounds',
    request: {
      params: SessionIdParam,
      body: { required: true, content: { 'application/json': { schema: RoundRequest } } },
    },
    responses: { 200: { description: 'round' } },
  }),
  (c) => c.json(roundReply(c.req.valid('param').session_id, c.req.valid('json')))
)
app.openapi(
  createRoute({
    method: 'get',
    path: '/v1/sessions/{session_id}',
    request: { params: SessionIdParam },
    responses: { 200: { description: 'view' }, 304: { description: 'unchanged' } },
  }),
  (c) => {
    if (c.req.header('if-none-match') === '"1"') return c.body(null, 304, { ETag: '"1"' })
    return c.json({ ...VIEW, session_id: c.req.valid('param').session_id }, 200, { ETag: '"1"' })
  }
)
app.openapi(
  createRoute({
    method: 'post',
    path: '/v1/ingest/claude-code',
    request: {
      body: { required: true, content: { 'application/json': { schema: ClaudeHookInput } } },
    },
    responses: { 200: { description: 'hook reply' } },
  }),
  async (c) => {
    if (store) {
      const hook = c.req.valid('json')
      await store.put(hook.session_id, JSON.stringify(hook))
    }
    return c.json({})
  }
)
const server = serve({ fetch: app.fetch, port: PORT, hostname: '127.0.0.1' }, () =>
  console.log('ready')
)
server.keepAliveTimeout = 5000
process.on('SIGTERM', () => {
  server.close()
  Promise.resolve(store?.close()).finally(() => process.exit(0))
})
