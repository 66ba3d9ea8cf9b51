/**
 * The outbox survives `kill -9` (SPEC §3 Alerts): a SQLite server is killed while its events are
 * still in the outbox or pending delivery (the receiver is down); a restart on the same file
 * delivers every one, each verified with `standardwebhooks`.
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eventually } from '../eventually.js'
import { startReceiver, verify } from '../webhook-support.js'
import { request, startServer, type ServerProcess } from './server-process.js'

const SESSIONS = 12

describe('webhooks: kill -9 with undelivered events', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-todos-webhooks-crash-'))
  const servers: ServerProcess[] = []
  after(async () => {
    for (const server of servers) await server.kill()
    rmSync(dir, { recursive: true, force: true })
  })

  it('Should deliver every event after a restart', async () => {
    let down = true
    const receiver = await startReceiver(() => (down ? 503 : 200))
    after(() => receiver.close())
    const env = {
      STORE: 'sqlite',
      SQLITE_PATH: join(dir, 'store.db'),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1',
    }
    const first = await startServer(env)
    servers.push(first)
    const hook = await request(first.url, 'POST', '/v1/webhooks', {
      url: receiver.url,
      events: ['session.done', 'session.ended'],
    })
    assert.equal(hook.status, 201, hook.text)
    for (let i = 0; i < SESSIONS; i++) {
      const path = `/v1/sessions/crash-${i}`
      const items = [{ id: '1', content: 'only step', status: 'completed' }]
      assert.equal((await request(first.url, 'PUT', `${path}/todos`, { items })).status, 200)
      assert.equal(
        (await request(first.url, 'POST', `${path}/end`, { outcome: 'completed' })).status,
        200
      )
    }
    // some attempts failed already (the receiver is down); the rest is in the outbox or pending
    assert.ok(await eventually(() => receiver.received.length > 0))
    await first.kill()
    const refusedBefore = new Set(receiver.received.map((d) => d.headers['webhook-id']))
    down = false
    const second = await startServer(env)
    servers.push(second)
    const delivered = () => {
      const ok = new Map<string, string>()
      for (const d of receiver.received) {
        ok.set(`${d.json.type} ${d.json.data.session.session_id}`, String(d.headers['webhook-id']))
      }
      return ok
    }
    assert.ok(
      await eventually(() => delivered().size === 2 * SESSIONS, 90_000),
      `delivered ${delivered().size} of ${2 * SESSIONS}`
    )
    for (let i = 0; i < SESSIONS; i++) {
      for (const type of ['session.done', 'session.ended']) {
        assert.ok(delivered().has(`${type} crash-${i}`), `${type} crash-${i}`)
      }
    }
    for (const d of receiver.received) verify(hook.body.secret, d)
    // a retry after the restart carries the id its first attempt had
    const afterRestart = receiver.received.filter((d) => refusedBefore.has(d.headers['webhook-id']))
    assert.ok(afterRestart.length >= refusedBefore.size)
    await second.stop()
  })
})
