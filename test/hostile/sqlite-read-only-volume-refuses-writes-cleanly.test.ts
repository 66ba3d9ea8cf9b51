/**
 * Finding 6 on a read-only volume: the server on SQLite answered 500 `internal` to writes once its
 * file could not be written. The test makes an ext4 file system in a loop file (root only; it
 * skips elsewhere and says why), mounted with `errors=remount-ro`, and has the kernel report an
 * error on it: the volume turns read-only under the running server, as a failing disk does.
 * (A chmod would not do: the server runs as root here, and root writes a 0444 file.) Writes
 * answer 503 with Retry-After, reads go on, /readyz is 503; a server started on the read-only
 * volume serves reads and refuses writes the same way.
 */
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { request, startServer, type ServerProcess } from '../e2e/server-process.js'
import { isReadOnly, mountExt4Loop, type LoopMount } from './mounts.js'

const round = (n: number) => ({
  tool_calls: [
    {
      id: `toolu_${n}`,
      name: 'todo',
      input: { items: [{ id: '1', text: `Write ${n}`, status: 'in_progress' }] },
    },
  ],
})

const mount = mountExt4Loop(32)
const skip = typeof mount === 'string' ? `needs an ext4 loop mount: ${mount}` : false

describe('hostile 06: SQLite on a volume that turns read-only', { skip, timeout: 120_000 }, () => {
  const { dir, cleanup, triggerError } = mount as LoopMount
  // the after hook unmounts; this covers a runner that dies before it
  process.once('exit', cleanup)
  const env = {
    STORE: 'sqlite',
    SQLITE_PATH: join(dir, 'data', 'agent-todos.db'),
    RATE_LIMIT_PER_MINUTE: '0',
  }
  let server: ServerProcess
  const acknowledged = new Map<string, number>()

  before(async () => {
    server = await startServer(env)
  })
  after(async () => {
    await server?.kill()
    cleanup()
  })

  const assertRefusesWrites = async () => {
    for (const attempt of [
      () => request(server.url, 'POST', '/v1/sessions/s0/rounds', round(99)),
      () => request(server.url, 'POST', '/v1/sessions/new-one/rounds', round(99)),
      () =>
        request(server.url, 'PUT', '/v1/sessions/s1/todos', {
          items: [{ id: '1', content: 'x', status: 'pending' }],
        }),
      () => request(server.url, 'POST', '/v1/sessions/s2/end', { outcome: 'completed' }),
      () => request(server.url, 'DELETE', '/v1/sessions/s3'),
    ]) {
      const reply = await attempt()
      assert.equal(reply.status, 503, `${reply.text}\n${server.output()}`)
      assert.equal(reply.headers.get('retry-after'), '1')
      assert.match(reply.body.type, /store-unavailable$/)
    }
  }

  const assertReads = async () => {
    for (const [sessionId, version] of acknowledged) {
      const reply = await request(server.url, 'GET', `/v1/sessions/${sessionId}`)
      assert.equal(reply.status, 200, reply.text)
      assert.equal(reply.body.version, version)
    }
    const list = await request(server.url, 'GET', '/v1/sessions?limit=100')
    assert.equal(list.status, 200, list.text)
    assert.equal(list.body.sessions.length, acknowledged.size)
  }

  it('Should answer 503 with Retry-After to writes, keep reads and turn readiness 503', async () => {
    for (let n = 0; n < 20; n++) {
      const reply = await request(server.url, 'POST', `/v1/sessions/s${n}/rounds`, round(n))
      assert.equal(reply.status, 200, reply.text)
      acknowledged.set(`s${n}`, reply.body.version)
    }
    triggerError()
    // the kernel handles the error in a work queue: the remount comes a moment later
    for (const end = Date.now() + 30_000; Date.now() < end && !isReadOnly(dir);) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.ok(isReadOnly(dir), 'the kernel turned the volume read-only')
    await assertRefusesWrites()
    await assertReads()
    assert.equal((await request(server.url, 'GET', '/readyz')).status, 503)
    assert.equal((await request(server.url, 'GET', '/livez')).status, 200)
  })

  it('Should start on the read-only volume, serve reads and refuse writes with 503', async () => {
    await server.kill()
    server = await startServer(env, { waitReady: false })
    let ready = await request(server.url, 'GET', '/readyz').catch(() => undefined)
    for (const end = Date.now() + 60_000; Date.now() < end && ready?.status !== 200;) {
      if (server.child.exitCode !== null) break
      await new Promise((resolve) => setTimeout(resolve, 100))
      ready = await request(server.url, 'GET', '/readyz').catch(() => undefined)
    }
    assert.equal(ready?.status, 200, `readiness before any write\n${server.output()}`)
    await assertReads()
    await assertRefusesWrites()
    assert.equal((await request(server.url, 'GET', '/readyz')).status, 503)
  })
})
