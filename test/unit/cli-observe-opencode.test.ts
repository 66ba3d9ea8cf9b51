/**
 * `agent-todos observe --opencode <url>` against a stand-in opencode server (its `GET /global/event`
 * SSE) and a recorder in place of the service: what it forwards, in order, and that it follows the
 * server again after a restart (the stream closed, then refused, then served again).
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'
import { forwardedEvent, observeOpencode } from '../../src/cli/observe-opencode.js'
import { eventually } from '../eventually.js'

const SESSION = 'ses_236100000001AbCdEfGhIjKl'

const global = (id: string, type: string, properties: object, directory = '/nowhere/project') => ({
  directory,
  project: 'global',
  payload: { id, type, properties },
})

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('agent-todos observe --opencode', () => {
  it('Should forward only the session events the service reads', () => {
    assert.equal(forwardedEvent(global('evt_1', 'server.heartbeat', {})), null)
    assert.equal(forwardedEvent({ payload: { id: 'evt_2', type: 'sync', syncEvent: {} } }), null)
    assert.equal(
      forwardedEvent(global('evt_3', 'message.part.updated', { sessionID: SESSION })),
      null
    )
    assert.equal(forwardedEvent(global('evt_4', 'session.error', { error: {} })), null)
    assert.deepEqual(
      forwardedEvent(global('evt_5', 'todo.updated', { sessionID: SESSION, todos: [] })),
      {
        directory: '/nowhere/project',
        event: { id: 'evt_5', type: 'todo.updated', properties: { sessionID: SESSION, todos: [] } },
      }
    )
  })

  it('Should post the events in order with ?agent=kilo, and follow the server again after it restarts', async () => {
    const posts: { url: string; body: any[]; headers: Record<string, unknown> }[] = []
    const service = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk) => (body += chunk))
      req.on('end', () => {
        posts.push({ url: req.url!, body: JSON.parse(body), headers: req.headers })
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      })
    })
    let connections = 0
    const opencode = createServer((req, res) => {
      connections++
      // the second connection finds the server restarting
      if (connections === 2) return void res.writeHead(503).end()
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const send = (value: unknown) => res.write(`data: ${JSON.stringify(value)}\n\n`)
      send({ payload: { id: `evt_c${connections}`, type: 'server.connected', properties: {} } })
      if (connections === 1) {
        send(
          global('evt_236100000001a', 'session.created', {
            sessionID: SESSION,
            info: { id: SESSION },
          })
        )
        send(
          global('evt_236100000002a', 'todo.updated', {
            sessionID: SESSION,
            todos: [{ content: 'A', status: 'pending', priority: 'high' }],
          })
        )
        send(global('evt_236100000003a', 'message.part.delta', { sessionID: SESSION, delta: 'x' }))
        // the server goes away
        setTimeout(() => res.end(), 50)
      } else {
        send(
          global('evt_236100000004a', 'permission.asked', {
            id: 'per_1',
            sessionID: SESSION,
            permission: 'edit',
            patterns: ['a.txt'],
          })
        )
      }
    })
    const [url, server] = await Promise.all([listen(service), listen(opencode)])
    const controller = new AbortController()
    const err = new PassThrough()
    let stderr = ''
    err.on('data', (chunk) => (stderr += chunk))
    const running = observeOpencode({
      url,
      key: 'k-1',
      server,
      agent: 'kilo',
      err,
      signal: controller.signal,
      tuning: { lingerMs: 5, reconnectBaseMs: 10, reconnectMaxMs: 20 },
    })
    try {
      assert.ok(
        await eventually(() =>
          posts.flatMap((p) => p.body).some((e) => e.type === 'permission.asked')
        ),
        stderr
      )
    } finally {
      controller.abort()
    }
    assert.equal(await running, 0)
    service.close()
    opencode.close()
    assert.ok(connections >= 3)
    assert.deepEqual(
      posts.flatMap((p) => p.body).map((e) => e.type),
      ['session.created', 'todo.updated', 'permission.asked']
    )
    for (const post of posts) {
      assert.equal(post.url, '/v1/ingest/opencode?agent=kilo')
      assert.equal(post.headers.authorization, 'Bearer k-1')
      assert.equal(typeof post.headers['x-agent-host'], 'string')
    }
    assert.match(stderr, /following again/)
  })
})
