/**
 * Finding 6 on a real full disk: the server on SQLite answered 500 `internal` without Retry-After
 * when the volume filled, and /readyz stayed 200. The test mounts a small tmpfs (root only; it
 * skips elsewhere and says why), puts SQLITE_PATH on it and a filler file next to it, and writes
 * until SQLITE_FULL: writes answer 503 with Retry-After, never 500; reads go on; /readyz is 503.
 * Then the filler goes: writes and /readyz come back without a restart, and every acknowledged
 * write is there, also after a kill -9.
 */
import { closeSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { request, startServer, type ServerProcess } from '../e2e/server-process.js'
import { mountTmpfs, type Mount } from './mounts.js'

const MIB = 1024 * 1024

/** A round writing five items of about 1.5 KB each: some 8 KB of session and 8 KB of history. */
const bigRound = (n: number) => ({
  tool_calls: [
    {
      id: `toolu_${n}`,
      name: 'todo',
      input: {
        items: Array.from({ length: 5 }, (_, i) => ({
          id: String(i + 1),
          text: `Step ${i + 1} of write ${n}: ${'x'.repeat(1500)}`,
          status: i === 0 ? 'in_progress' : 'pending',
        })),
      },
    },
  ],
})

/** Appends to `path` until the file system has no byte left. */
function topUp(path: string) {
  const fd = openSync(path, 'a')
  try {
    for (const chunk of [64 * 1024, 4096, 512, 1]) {
      const buffer = Buffer.alloc(chunk)
      for (;;) {
        try {
          writeSync(fd, buffer)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
          break
        }
      }
    }
  } finally {
    closeSync(fd)
  }
}

const mount = mountTmpfs(24)
const skip = typeof mount === 'string' ? `needs a tmpfs: ${mount}` : false

describe('hostile 06: SQLite on a full disk', { skip, timeout: 180_000 }, () => {
  const { dir, cleanup } = mount as Mount
  // the after hook unmounts; this covers a runner that dies before it
  process.once('exit', cleanup)
  const env = {
    STORE: 'sqlite',
    SQLITE_PATH: join(dir, 'data', 'agent-todos.db'),
    RATE_LIMIT_PER_MINUTE: '0',
  }
  const filler = join(dir, 'filler')
  let server: ServerProcess
  /** session id → the last version a 200 acknowledged */
  const acknowledged = new Map<string, number>()

  before(async () => {
    // about 3 MiB left for the database: full before the first checkpoint, which would need
    // room for both the -wal file and the pages it copies
    writeFileSync(filler, Buffer.alloc(21 * MIB))
    server = await startServer(env)
  })
  after(async () => {
    await server?.kill()
    cleanup()
  })

  const write = (sessionId: string, n: number) =>
    request(server.url, 'POST', `/v1/sessions/${sessionId}/rounds`, bigRound(n))

  it('Should answer 503 with Retry-After (never 500) once the disk is full, keep reads and turn readiness 503', async () => {
    const statuses = new Map<number, number>()
    let full: Awaited<ReturnType<typeof write>> | undefined
    for (let n = 0; n < 5000 && !full; n += 8) {
      // eight at a time: the full disk hits group commits of several writes
      const batch = Array.from({ length: 8 }, (_, i) => `s${(n + i) % 400}`)
      const replies = await Promise.all(batch.map((id, i) => write(id, n + i)))
      replies.forEach((reply, i) => {
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
        if (reply.status === 200) acknowledged.set(batch[i], reply.body.version)
        else full ??= reply
      })
    }
    assert.ok(full, `the disk never filled: ${JSON.stringify([...statuses])}`)
    assert.deepEqual(
      [...statuses.keys()].sort(),
      [200, 503],
      `only 200 and 503: ${JSON.stringify([...statuses])}\n${server.output()}`
    )
    assert.equal(full.status, 503)
    assert.equal(full.headers.get('retry-after'), '1')
    assert.match(full.body.type, /store-unavailable$/, full.text)
    assert.match(full.body.detail, /cannot write/)
    assert.ok(acknowledged.size > 0)

    // what is left is smaller than a write of eight, not nothing: the test takes what the file
    // system has left, then single writes use up what the -wal file holds from the failed ones
    topUp(join(dir, 'top-up'))
    let single = await write('single-0', 0)
    for (let n = 1; n < 200 && single.status === 200; n++) {
      acknowledged.set(`single-${n - 1}`, single.body.version)
      single = await write(`single-${n}`, n)
    }
    assert.equal(single.status, 503, single.text)
    // writes of other kinds and sizes may still find a little of that room: each kind is tried
    // until none fits, every 200 counts as acknowledged, and nothing is ever a 500
    const [sessionId, putId, endId] = acknowledged.keys()
    const putBody = {
      items: bigRound(0).tool_calls[0].input.items.map(({ text, ...item }) => ({
        ...item,
        content: text,
      })),
    }
    const attempts: [string, () => ReturnType<typeof write>][] = [
      ['fresh-one', () => write('fresh-one', 0)],
      [sessionId, () => write(sessionId, 1)],
      [putId, () => request(server.url, 'PUT', `/v1/sessions/${putId}/todos`, putBody)],
      [
        endId,
        () => request(server.url, 'POST', `/v1/sessions/${endId}/end`, { outcome: 'completed' }),
      ],
    ]
    let refused: Awaited<ReturnType<typeof write>>[] = []
    for (let pass = 0; pass < 100 && refused.length < attempts.length; pass++) {
      refused = []
      for (const [id, attempt] of attempts) {
        const reply = await attempt()
        assert.ok([200, 503].includes(reply.status), reply.text)
        if (reply.status === 200) acknowledged.set(id, reply.body.version)
        else refused.push(reply)
      }
    }
    assert.equal(
      refused.length,
      attempts.length,
      'a new session, an existing one, PUT and end refused'
    )
    for (const reply of refused) {
      assert.equal(reply.status, 503, reply.text)
      assert.equal(reply.headers.get('retry-after'), '1')
    }
    const read = await request(server.url, 'GET', `/v1/sessions/${sessionId}`)
    assert.equal(read.status, 200, 'reads go on')
    assert.equal(read.body.version, acknowledged.get(sessionId))
    assert.equal((await request(server.url, 'GET', '/v1/sessions?limit=5')).status, 200)
    assert.equal((await request(server.url, 'GET', '/readyz')).status, 503)
    assert.equal((await request(server.url, 'GET', '/livez')).status, 200)
  })

  it('Should write again and turn ready again without a restart once there is room', async () => {
    rmSync(filler)
    rmSync(join(dir, 'top-up'))
    let ready = await request(server.url, 'GET', '/readyz')
    for (const end = Date.now() + 60_000; Date.now() < end && ready.status !== 200;) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      ready = await request(server.url, 'GET', '/readyz')
    }
    assert.equal(ready.status, 200, ready.text)
    for (let n = 0; n < 40; n++) {
      const sessionId = `after-${n % 10}`
      const reply = await write(sessionId, n)
      assert.equal(reply.status, 200, reply.text)
      acknowledged.set(sessionId, reply.body.version)
    }
  })

  it('Should hold every acknowledged write, also after kill -9 and a restart', async () => {
    const check = async () => {
      for (const [sessionId, version] of acknowledged) {
        const reply = await request(server.url, 'GET', `/v1/sessions/${sessionId}`)
        assert.equal(reply.status, 200, sessionId)
        assert.equal(reply.body.version, version, sessionId)
      }
    }
    await check()
    await server.kill()
    server = await startServer(env)
    await check()
  })
})
