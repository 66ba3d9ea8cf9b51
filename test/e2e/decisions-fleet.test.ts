/**
 * End to end: decisions across a fleet of two instances on one Redis. A `?decide=1` hook held by
 * one instance hears the answer posted to the other (through the store's change notification),
 * within a second; a second answer is 409 on either.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { request, startServer, type ServerProcess } from './server-process.js'
import {
  dropKeys,
  missingRedis,
  probeRedis,
  TEST_REDIS_URL,
  uniquePrefix,
} from '../redis-support.js'

const unreachable = await probeRedis()
const hook = JSON.parse(
  readFileSync(
    new URL('../fixtures/ingest/claude-code/real-permission-request.json', import.meta.url),
    'utf8'
  )
)

if (unreachable) {
  missingRedis(`Decisions on a fleet on Redis at ${TEST_REDIS_URL}`, unreachable)
} else {
  describe('Decisions on a fleet of two instances on one Redis', () => {
    const prefix = uniquePrefix('decide')
    const env = {
      STORE: 'redis',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      DECISIONS_OPEN: 'true',
    }
    let a: ServerProcess
    let b: ServerProcess
    before(async () => {
      ;[a, b] = await Promise.all([startServer(env), startServer(env)])
    })
    after(async () => {
      await Promise.all([a?.stop(), b?.stop()])
      await dropKeys({ url: TEST_REDIS_URL }, prefix)
    })

    for (const round of [1, 2, 3]) {
      it(`Should reach the hook held by one instance from an answer posted to the other (${round})`, async () => {
        const session = `claude:fleet-${round}-${hook.session_id}`
        const held = request(
          a.url,
          'POST',
          `/v1/ingest/claude-code?decide=1&session_id=${session}`,
          hook
        )
        let requestId: string | undefined
        for (const end = Date.now() + 10_000; !requestId && Date.now() < end;) {
          const view = await request(b.url, 'GET', `/v1/sessions/${session}`)
          requestId = view.status === 200 ? view.body.waiting?.request?.id : undefined
        }
        assert.ok(requestId, 'the request shows on the other instance')
        const answered = await request(b.url, 'POST', `/v1/sessions/${session}/decisions`, {
          request_id: requestId,
          decision: 'deny',
          message: 'Denied from the fleet',
        })
        assert.equal(answered.status, 200, answered.text)
        const answeredAt = Date.now()
        const reply = await held
        const tookMs = Date.now() - answeredAt
        assert.equal(reply.status, 200)
        assert.deepEqual(reply.body.hookSpecificOutput.decision, {
          behavior: 'deny',
          message: 'Denied from the fleet',
        })
        assert.ok(tookMs < 1000, `the held hook heard the answer after ${tookMs} ms`)
        for (const server of [a, b]) {
          const again = await request(server.url, 'POST', `/v1/sessions/${session}/decisions`, {
            request_id: requestId,
            decision: 'allow',
          })
          assert.equal(again.status, 409, again.text)
        }
      })
    }
  })
}
