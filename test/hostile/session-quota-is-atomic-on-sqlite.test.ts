/**
 * Finding 10 against the real server on SQLite: with MAX_SESSIONS_PER_TENANT=5, 100 concurrent
 * creations stored 100 sessions. The count and the creation are one step of the group commit's
 * IMMEDIATE transaction, so exactly 5 are stored: from one process, and from two processes on
 * one file (BEGIN IMMEDIATE serialises them).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { request, startServer, type ServerProcess } from '../e2e/server-process.js'

const round = { tool_calls: [{ id: 'toolu_1', name: 'bash', input: { command: 'ls' } }] }

describe('hostile 10: the session quota is hard on SQLite', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-todos-quota-'))
  const servers: ServerProcess[] = []
  after(async () => {
    await Promise.all(servers.map((server) => server.kill()))
    rmSync(dir, { recursive: true, force: true })
  })
  const start = async (path: string) => {
    const server = await startServer({
      STORE: 'sqlite',
      SQLITE_PATH: path,
      MAX_SESSIONS_PER_TENANT: '5',
      RATE_LIMIT_PER_MINUTE: '0',
    })
    servers.push(server)
    return server
  }

  const createConcurrently = async (targets: ServerProcess[]) => {
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        request(targets[i % targets.length].url, 'POST', `/v1/sessions/c${i}/rounds`, round)
      )
    )
    return {
      accepted: replies.filter((r) => r.status === 200).length,
      refused: replies.filter(
        (r) => r.status === 403 && /session-quota-exceeded$/.test(r.body.type)
      ).length,
    }
  }

  it('Should store exactly 5 of 100 concurrent creations', async () => {
    const server = await start(join(dir, 'one.db'))
    assert.deepEqual(await createConcurrently([server]), { accepted: 5, refused: 95 })
    const list = await request(server.url, 'GET', '/v1/sessions?limit=200')
    assert.equal(list.body.sessions.length, 5)
  })

  it('Should store exactly 5 when two processes share the file', async () => {
    const path = join(dir, 'shared.db')
    const a = await start(path)
    const b = await start(path)
    assert.deepEqual(await createConcurrently([a, b]), { accepted: 5, refused: 95 })
    for (const server of [a, b]) {
      const list = await request(server.url, 'GET', '/v1/sessions?limit=200')
      assert.equal(list.body.sessions.length, 5)
    }
    // a deletion frees a place, and its tombstone does not take it
    const [first] = (await request(a.url, 'GET', '/v1/sessions?limit=200')).body.sessions
    assert.equal((await request(b.url, 'DELETE', `/v1/sessions/${first.session_id}`)).status, 204)
    // the four left are updated (200), one of the other 96 is created
    assert.deepEqual(await createConcurrently([b, a]), { accepted: 5, refused: 95 })
    const list = await request(b.url, 'GET', '/v1/sessions?limit=200')
    assert.equal(list.body.sessions.length, 5)
  })
})
