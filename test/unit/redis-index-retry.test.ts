/**
 * On Redis Cluster a session's listing index lives in another slot than the session, so the
 * write's index step is a command of its own (store/redis/listing.ts `indexAdd`). Found by the
 * sessions gauge on a loaded CI host: a step refused while the cluster client refreshed its slots
 * ("Cluster isn't ready") was only logged, and the session stayed out of its tenant's listing and
 * counts until its next write. The step is now awaited by the write and retried when it fails.
 */
import { describe, it, mock } from 'node:test'
import assert from 'node:assert/strict'
import type { Cluster } from 'ioredis'
import { createListing } from '../../src/store/redis/listing.js'
import { keyLayout } from '../../src/store/redis/keys.js'

/** A cluster client whose index step fails `failures` times, then succeeds. */
function flakyCluster(failures: number) {
  const calls: string[][] = []
  const client = {
    atIndexAdd: (...args: string[]) => {
      calls.push(args)
      return calls.length <= failures
        ? Promise.reject(new Error("Cluster isn't ready and enableOfflineQueue options is false"))
        : Promise.resolve(1)
    },
  }
  return { client: client as unknown as Cluster, calls }
}

const quietLogger = () => {
  const warnings: string[] = []
  return {
    warnings,
    logger: { info: () => {}, warn: (_: object, msg: string) => warnings.push(msg) },
  }
}

describe('Cluster listing index step', () => {
  it('Should resolve once the index holds the session', async () => {
    const { client, calls } = flakyCluster(0)
    const { logger, warnings } = quietLogger()
    const listing = createListing({
      client,
      keys: keyLayout('t:'),
      ttlMs: 60_000,
      now: Date.now,
      logger,
    })
    await listing.indexAdd({ tenant: 'acme', sessionId: 's1' }, 1_000, null)
    assert.equal(calls.length, 1)
    assert.deepEqual(calls[0].slice(2), ['1000', 's1', '60000', ''])
    assert.deepEqual(warnings, [])
  })

  it('Should try a failed index step again until it lands, never rejecting the write', async () => {
    mock.timers.enable({ apis: ['setTimeout'] })
    try {
      const { client, calls } = flakyCluster(2)
      const { logger, warnings } = quietLogger()
      const listing = createListing({
        client,
        keys: keyLayout('t:'),
        ttlMs: 60_000,
        now: Date.now,
        logger,
      })
      await listing.indexAdd({ tenant: 'acme', sessionId: 's1' }, 1_000, {
        id: 'seat-1',
        deadline: 0,
      })
      assert.equal(calls.length, 1)
      mock.timers.tick(250)
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(calls.length, 2)
      mock.timers.tick(1_000)
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(calls.length, 3, 'the third attempt lands')
      assert.ok(calls.every((args) => args[3] === 's1' && args[5] === 'seat-1'))
      mock.timers.tick(60_000)
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(calls.length, 3, 'nothing more once it landed')
      assert.deepEqual(warnings, [
        'session index not updated yet; retrying',
        'session index not updated yet; retrying',
      ])
    } finally {
      mock.timers.reset()
    }
  })
})
