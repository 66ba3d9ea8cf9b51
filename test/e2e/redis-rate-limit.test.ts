/**
 * End to end: two instances on one Redis share each tenant's request budget.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { request, startServer, type ServerProcess } from './server-process.js'
import {
  dropKeys,
  missingRedis,
  probeRedis,
  TEST_REDIS_URL,
  uniquePrefix,
} from '../redis-support.js'

const unreachable = await probeRedis()

if (unreachable) {
  missingRedis(`Rate limit on Redis at ${TEST_REDIS_URL}`, unreachable)
} else {
  describe('A per-tenant rate limit shared by a fleet on Redis', () => {
    const prefix = uniquePrefix('ratelimit')
    const env = {
      STORE: 'redis',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      READ_RATE_LIMIT_PER_MINUTE: '6',
      AUTH_KEYS: 'acme:agent:acme-key-0001,globex:agent:globex-key-0001',
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

    it('Should count requests on both instances against one budget', async () => {
      const acme = { Authorization: 'Bearer acme-key-0001' }
      const statuses = []
      for (let i = 0; i < 4; i++) {
        statuses.push((await request(a.url, 'GET', '/v1/dialects', undefined, acme)).status)
        statuses.push((await request(b.url, 'GET', '/v1/dialects', undefined, acme)).status)
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429])
      const limited = await request(b.url, 'GET', '/v1/sessions', undefined, acme)
      assert.equal(limited.status, 429)
      assert.equal(limited.headers.get('content-type'), 'application/problem+json')
      assert.match(limited.headers.get('ratelimit') ?? '', /limit=6, remaining=0/)
      const globex = await request(a.url, 'GET', '/v1/dialects', undefined, {
        Authorization: 'Bearer globex-key-0001',
      })
      assert.equal(globex.status, 200)
    })
  })
}
