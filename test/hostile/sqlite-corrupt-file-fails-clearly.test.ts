/**
 * Finding 6 on a corrupt file: the server on SQLite answered 500 `internal`. Now a file that is
 * not a database at all stops the server at startup with a clear error naming SQLITE_PATH (exit
 * 1, never listening), and a database whose pages are damaged answers 503 with Retry-After to
 * reads and writes, and /readyz turns 503 after the first failed write.
 */
import {
  closeSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { request, startServer, type ServerProcess } from '../e2e/server-process.js'
import { schemaPages } from '../sqlite-support.js'

const round = (n: number) => ({
  tool_calls: [
    {
      id: `toolu_${n}`,
      name: 'todo',
      input: { items: [{ id: '1', text: `Write ${n}`, status: 'in_progress' }] },
    },
  ],
})

describe('hostile 06: SQLite on a corrupt file', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-todos-corrupt-'))
  let server: ServerProcess | undefined
  after(async () => {
    await server?.kill()
    rmSync(dir, { recursive: true, force: true })
  })

  it('Should refuse to start on a file that is not a database, saying which file and why', async () => {
    const path = join(dir, 'garbage.db')
    writeFileSync(path, 'these are not the pages you are looking for\n'.repeat(500))
    server = await startServer({ STORE: 'sqlite', SQLITE_PATH: path }, { waitReady: false })
    const code = await new Promise<number | null>((resolve) => {
      if (server!.child.exitCode !== null) resolve(server!.child.exitCode)
      else server!.child.once('exit', (exitCode) => resolve(exitCode))
    })
    assert.equal(code, 1, server.output())
    assert.match(
      server.output(),
      new RegExp(
        `cannot open the SQLite store at ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(SQLITE_PATH\\): file is not a database \\(SQLITE_NOTADB\\)`
      )
    )
  })

  it('Should answer 503 with Retry-After, never 500, when the pages are damaged', async () => {
    const path = join(dir, 'damaged.db')
    const env = { STORE: 'sqlite', SQLITE_PATH: path, RATE_LIMIT_PER_MINUTE: '0' }
    server = await startServer(env)
    for (let n = 0; n < 300; n += 10) {
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          request(server!.url, 'POST', `/v1/sessions/s${n + i}/rounds`, round(n + i))
        )
      )
      for (const reply of replies) assert.equal(reply.status, 200, reply.text)
    }
    // a clean stop checkpoints the -wal file into the database and removes it
    assert.equal(await server.stop(), 0)
    // every page but the schema's (the first, with the header, and any the schema grew into):
    // the tables' b-trees are gone
    const pageSize = 4096
    const kept = new Set(schemaPages(path).map((page) => (page - 1) * pageSize))
    const fd = openSync(path, 'r+')
    for (let at = pageSize; at < statSync(path).size; at += pageSize) {
      if (!kept.has(at)) writeSync(fd, Buffer.alloc(pageSize), 0, pageSize, at)
    }
    closeSync(fd)

    server = await startServer(env)
    const replies = [
      await request(server.url, 'GET', '/v1/sessions/s1'),
      await request(server.url, 'GET', '/v1/sessions/s1/history'),
      await request(server.url, 'GET', '/v1/sessions?limit=10'),
      await request(server.url, 'POST', '/v1/sessions/s1/rounds', round(1)),
      await request(server.url, 'POST', '/v1/sessions/new-one/rounds', round(1)),
      await request(server.url, 'PUT', '/v1/sessions/s2/todos', {
        items: [{ id: '1', content: 'x', status: 'pending' }],
      }),
      await request(server.url, 'DELETE', '/v1/sessions/s3'),
    ]
    for (const reply of replies) {
      assert.equal(reply.status, 503, `${reply.text}\n${server.output()}`)
      assert.equal(reply.headers.get('retry-after'), '1')
      assert.match(reply.body.type, /store-unavailable$/)
    }
    assert.equal((await request(server.url, 'GET', '/readyz')).status, 503)
    assert.equal((await request(server.url, 'GET', '/livez')).status, 200)
  })
})
