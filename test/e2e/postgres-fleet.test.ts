/**
 * End to end on PostgreSQL (SPEC "PostgreSQL"): server processes sharing one database.
 * - a stream on one instance hears the other's writes within a second (LISTEN / NOTIFY);
 * - 20 sessions ended across both instances: each alert is delivered once;
 * - `kill -9` of an instance under 8 writers loses no acknowledged round;
 * - PostgreSQL made unreachable (a TCP proxy this test cuts): every request is a 503 problem
 *   with Retry-After, `/readyz` is 503, and the same process serves again when it returns.
 */
import { once } from 'node:events'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { eventually } from '../eventually.js'
import {
  dropDatabase,
  freshDatabase,
  missingPostgres,
  probePostgres,
  TEST_POSTGRES_URL,
} from '../postgres-support.js'
import { sseReader } from '../sse.js'
import { startReceiver } from '../webhook-support.js'
import { request, startServer, type ServerProcess } from './server-process.js'

const down = await probePostgres()

const todo = (id: string, status: string) => ({
  tool_calls: [{ id, name: 'todo', input: { items: [{ id: '1', text: 'Ship', status }] } }],
})

/** A TCP proxy to the test server's PostgreSQL that can be cut (and restored) at will. */
async function startCuttableProxy() {
  const target = new URL(TEST_POSTGRES_URL)
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0
  const listen = async () => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname)
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on('close', () => sockets.delete(socket))
        socket.on('error', () => socket.destroy())
      }
      client.pipe(upstream).pipe(client)
      client.on('close', () => upstream.destroy())
      upstream.on('close', () => client.destroy())
    })
    server.listen(port, '127.0.0.1')
    await once(server, 'listening')
    port = (server.address() as { port: number }).port
  }
  await listen()
  return {
    url(database: string) {
      const url = new URL(database)
      url.host = `127.0.0.1:${port}`
      return url.toString()
    },
    /** Refuses new connections and breaks the open ones. */
    async cut() {
      const closing = server ? once(server, 'close') : Promise.resolve()
      server?.close()
      for (const socket of sockets) socket.destroy()
      await closing
      server = undefined
    },
    restore: listen,
    close: async () => {
      server?.close()
      for (const socket of sockets) socket.destroy()
    },
  }
}

if (down) {
  missingPostgres('postgres fleet', down)
} else {
  describe('PostgreSQL: two instances on one database', () => {
    let database: string
    let a: ServerProcess
    let b: ServerProcess
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    before(async () => {
      database = await freshDatabase('fleet')
      receiver = await startReceiver()
      const env = {
        STORE: 'postgres',
        DATABASE_URL: database,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
      }
      // both start at once: the migration runs once, under its advisory lock
      ;[a, b] = await Promise.all([startServer(env), startServer(env)])
    })
    after(async () => {
      await Promise.all([a?.stop(), b?.stop()])
      await receiver?.close()
      if (database) await dropDatabase(database)
    })

    it("Should let a stream on one instance hear the other's writes within a second", async () => {
      const first = await request(a.url, 'POST', '/v1/sessions/heard/rounds', todo('t1', 'pending'))
      assert.equal(first.status, 200, first.text)
      const stream = await fetch(`${b.url}/v1/sessions/heard/events`, {
        headers: { accept: 'text/event-stream' },
      })
      assert.equal(stream.status, 200)
      const messages = sseReader(stream.body!)
      try {
        const next = async () => {
          for (;;) {
            const message = await messages.next(5000)
            assert.ok(message, 'the stream ended')
            if (message.event) return message
          }
        }
        assert.equal((await next()).event, 'snapshot')
        const started = performance.now()
        const round = await request(
          a.url,
          'POST',
          '/v1/sessions/heard/rounds',
          todo('t2', 'in_progress')
        )
        assert.equal(round.status, 200, round.text)
        const update = await next()
        const ms = performance.now() - started
        assert.equal(update.event, 'update')
        assert.equal(update.id, '2')
        assert.ok(ms < 1000, `heard after ${ms.toFixed(0)} ms`)
      } finally {
        await stream.body!.cancel().catch(() => undefined)
      }
    })

    it('Should deliver each alert of 20 sessions ended across both instances once', async () => {
      const hook = await request(a.url, 'POST', '/v1/webhooks', {
        url: receiver.url,
        events: ['session.ended'],
      })
      assert.equal(hook.status, 201, hook.text)
      const ids = Array.from({ length: 20 }, (_, i) => `ended-${i}`)
      await Promise.all(
        ids.map(async (id, i) => {
          const server = i % 2 ? a : b
          const other = i % 2 ? b : a
          assert.equal(
            (await request(server.url, 'POST', `/v1/sessions/${id}/rounds`, todo('t', 'pending')))
              .status,
            200
          )
          const end = await request(other.url, 'POST', `/v1/sessions/${id}/end`, {
            outcome: 'completed',
          })
          assert.equal(end.status, 200, end.text)
        })
      )
      const ended = () => receiver.of('session.ended').map((d) => d.json)
      assert.ok(await eventually(() => ended().length >= 20), `${ended().length} of 20 arrived`)
      // a moment more for a duplicate to show, had one instance sent what the other did
      await new Promise((resolve) => setTimeout(resolve, 1500))
      const sessions = ended().map((body) => body.data.session.session_id as string)
      assert.deepEqual([...sessions].sort(), [...ids].sort())
    })

    it('Should lose no acknowledged round when an instance is killed under 8 writers', async () => {
      const acknowledged = new Map<string, number>()
      let stop = false
      const writer = async (w: number) => {
        for (let n = 1; !stop; n++) {
          const res = await request(
            a.url,
            'POST',
            `/v1/sessions/kill-${w}/rounds`,
            todo(`c${n}`, n % 2 ? 'pending' : 'in_progress')
          ).catch(() => null)
          if (!res || res.status !== 200) return
          acknowledged.set(`kill-${w}`, (JSON.parse(res.text) as { version: number }).version)
        }
      }
      const writers = Array.from({ length: 8 }, (_, w) => writer(w))
      assert.ok(
        await eventually(
          () => [...acknowledged.values()].every((v) => v >= 5) && acknowledged.size === 8
        )
      )
      await a.kill()
      stop = true
      await Promise.all(writers)
      for (const [session, version] of acknowledged) {
        const res = await request(b.url, 'GET', `/v1/sessions/${session}`)
        assert.equal(res.status, 200, res.text)
        const stored = (JSON.parse(res.text) as { version: number }).version
        assert.ok(stored >= version, `${session}: acknowledged ${version}, stored ${stored}`)
      }
    })
  })

  describe('PostgreSQL: unreachable, then back', () => {
    let database: string
    let proxy: Awaited<ReturnType<typeof startCuttableProxy>>
    let server: ServerProcess
    before(async () => {
      database = await freshDatabase('outage')
      proxy = await startCuttableProxy()
      server = await startServer({ STORE: 'postgres', DATABASE_URL: proxy.url(database) })
    })
    after(async () => {
      await server?.stop()
      await proxy?.close()
      if (database) await dropDatabase(database)
    })

    it('Should answer 503 with Retry-After while PostgreSQL is away, and serve again without a restart', async () => {
      assert.equal(
        (await request(server.url, 'POST', '/v1/sessions/o/rounds', todo('t1', 'pending'))).status,
        200
      )
      await proxy.cut()
      for (const [method, path, body] of [
        ['POST', '/v1/sessions/o/rounds', todo('t2', 'in_progress')],
        ['GET', '/v1/sessions/o', undefined],
        ['GET', '/v1/sessions', undefined],
        ['GET', '/readyz', undefined],
      ] as const) {
        const started = performance.now()
        const res = await request(server.url, method, path, body)
        const ms = performance.now() - started
        assert.equal(res.status, 503, `${method} ${path}: ${res.status} ${res.text}`)
        assert.ok(res.headers.get('retry-after'), `${method} ${path}: no Retry-After`)
        assert.ok(ms < 5000, `${method} ${path} took ${ms.toFixed(0)} ms`)
      }
      await proxy.restore()
      // polled: the pool connects again on the next request once the server answers
      let status = 0
      const deadline = Date.now() + 30_000
      while (status !== 200 && Date.now() < deadline) {
        status = (
          await request(server.url, 'POST', '/v1/sessions/o/rounds', todo('t3', 'completed'))
        ).status
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250))
      }
      assert.equal(status, 200, `still ${status} after PostgreSQL came back`)
      const ready = await request(server.url, 'GET', '/readyz')
      assert.equal(ready.status, 200, ready.text)
    })
  })
}
