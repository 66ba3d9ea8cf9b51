/**
 * End to end: a redis-server this test owns is paused, killed and restarted under a running
 * server process. While it is away every request answers a 503 problem with Retry-After within
 * 2 s; when it returns the same process serves again. A server started before its Redis waits,
 * says why, and serves once Redis is up.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { ChangeEvent, SessionStore } from '../../src/store/types.js'
import { request, startServer, type ServerProcess } from './server-process.js'
import {
  freeRedisPort,
  missingRedis,
  openTestRedisStore,
  probeRedisBinaries,
  startRedisServer,
  type RedisServerProcess,
} from '../redis-support.js'

const missing = probeRedisBinaries()

const bashCall = (id: string) => ({ id, name: 'bash', input: { cmd: 'true' } })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Probe {
  what: string
  status: number
  ms: number
  problem: boolean
  retryAfter: string | null
}

/** One request of each kind the service answers from the store, timed. */
async function probeAll(server: ServerProcess, session: string): Promise<Probe[]> {
  const calls: [string, () => ReturnType<typeof request>][] = [
    [
      'round',
      () =>
        request(server.url, 'POST', `/v1/sessions/${session}/rounds`, {
          tool_calls: [bashCall('x')],
        }),
    ],
    ['get', () => request(server.url, 'GET', `/v1/sessions/${session}`)],
    ['list', () => request(server.url, 'GET', '/v1/sessions')],
    ['readyz', () => request(server.url, 'GET', '/readyz')],
  ]
  return Promise.all(
    calls.map(async ([what, call]) => {
      const started = performance.now()
      const res = await call()
      return {
        what,
        status: res.status,
        ms: performance.now() - started,
        problem: /application\/problem\+json/.test(res.headers.get('content-type') ?? ''),
        retryAfter: res.headers.get('retry-after'),
      }
    })
  )
}

function assertUnavailable(probes: Probe[]) {
  for (const probe of probes) {
    assert.equal(probe.status, 503, `${probe.what} answered ${probe.status}`)
    assert.ok(probe.problem, `${probe.what} is not problem+json`)
    assert.ok(probe.retryAfter, `${probe.what} has no Retry-After`)
    assert.ok(probe.ms < 2000, `${probe.what} took ${probe.ms.toFixed(0)} ms`)
  }
}

/** Polls until a round succeeds; returns how long that took. */
async function untilServing(
  server: ServerProcess,
  session: string,
  timeoutMs: number
): Promise<number> {
  const started = performance.now()
  while (performance.now() - started < timeoutMs) {
    const res = await request(server.url, 'POST', `/v1/sessions/${session}/rounds`, {
      tool_calls: [bashCall('r')],
    })
    if (res.status === 200) return performance.now() - started
    await sleep(50)
  }
  throw new Error(`not serving after ${timeoutMs} ms`)
}

if (missing) {
  missingRedis('Redis outage and recovery', missing)
} else {
  describe('Redis going away under a running server', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-todos-outage-'))
    let redis: RedisServerProcess
    let server: ServerProcess
    let watcher: SessionStore
    const heard: ChangeEvent[] = []
    before(async () => {
      redis = await startRedisServer(await freeRedisPort(), dir)
      server = await startServer({ STORE: 'redis', REDIS_URL: redis.url })
      watcher = await openTestRedisStore({ url: redis.url, ttlMs: 60_000, historyLimit: 5 })
      watcher.subscribe((event) => heard.push(event))
    })
    after(async () => {
      await watcher?.close()
      await server?.stop()
      await redis?.stop('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    })

    it('Should answer 503 within 2 s while Redis hangs (SIGSTOP) and serve again on SIGCONT', async () => {
      assert.equal(
        (
          await request(server.url, 'POST', '/v1/sessions/paused/rounds', {
            tool_calls: [bashCall('a')],
          })
        ).status,
        200
      )
      redis.child.kill('SIGSTOP')
      try {
        const [probes, queued] = await Promise.all([
          probeAll(server, 'paused'),
          // ten rounds queued on one session: none may wait out the others' timeouts
          Promise.all(
            Array.from({ length: 10 }, async (_, i) => {
              const started = performance.now()
              const res = await request(server.url, 'POST', '/v1/sessions/paused/rounds', {
                tool_calls: [bashCall(`q${i}`)],
              })
              return {
                what: `queued round ${i}`,
                status: res.status,
                ms: performance.now() - started,
                problem: true,
                retryAfter: res.headers.get('retry-after'),
              }
            })
          ),
        ])
        assertUnavailable([...probes, ...queued])
        console.log(
          `Redis paused: 503 after ${probes.map((p) => `${p.what} ${p.ms.toFixed(0)} ms`).join(', ')}`
        )
      } finally {
        redis.child.kill('SIGCONT')
      }
      const recovery = await untilServing(server, 'paused', 5000)
      console.log(`Redis resumed: serving again after ${recovery.toFixed(0)} ms`)
    })

    it('Should answer 503 problems within 2 s while Redis is down and recover by itself', async () => {
      assert.equal(
        (
          await request(server.url, 'POST', '/v1/sessions/down/rounds', {
            tool_calls: [bashCall('a')],
          })
        ).status,
        200
      )
      const pid = server.child.pid
      await redis.stop('SIGKILL')
      const worst: Record<string, number> = {}
      for (let i = 0; i < 10; i++) {
        const probes = await probeAll(server, 'down')
        assertUnavailable(probes)
        for (const probe of probes) worst[probe.what] = Math.max(worst[probe.what] ?? 0, probe.ms)
        await sleep(100)
      }
      console.log(
        `Redis down: slowest 503 per route ${JSON.stringify(worst, (_, v) => (typeof v === 'number' ? Math.round(v) : v))} ms`
      )

      const restartedAt = performance.now()
      redis = await startRedisServer(redis.port, dir)
      const started = performance.now() - restartedAt
      const recovery = await untilServing(server, 'down-after', 10_000)
      console.log(
        `Redis restarted (${started.toFixed(0)} ms to answer PING): first 200 round ${recovery.toFixed(0)} ms later`
      )

      assert.equal(server.child.pid, pid)
      assert.equal(server.child.exitCode, null)
      const probes = await probeAll(server, 'down-after')
      assert.deepEqual(
        probes.map((probe) => [probe.what, probe.status]),
        [
          ['round', 200],
          ['get', 200],
          ['list', 200],
          ['readyz', 200],
        ]
      )
      assert.match(server.output(), /redis connection lost/)
      // the change feed resubscribed by itself: a write through the server reaches this watcher
      heard.length = 0
      await request(server.url, 'POST', '/v1/sessions/after-outage/rounds', {
        tool_calls: [bashCall('b')],
      })
      // events of the probes just before may still be arriving: look at this session's only
      const ofSession = () => heard.filter((event) => event.session_id === 'after-outage')
      for (let waited = 0; ofSession().length === 0 && waited < 5000; waited += 20) await sleep(20)
      await sleep(100)
      assert.deepEqual(
        ofSession().map((event) => [event.session_id, event.version, event.source]),
        [['after-outage', 1, 'round']]
      )
    })
  })

  describe('A server started before its Redis', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-todos-late-'))
    let redis: RedisServerProcess | undefined
    let server: ServerProcess | undefined
    after(async () => {
      await server?.stop()
      await redis?.stop('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    })

    it('Should wait, log why, and serve once Redis is up', async () => {
      const port = await freeRedisPort()
      server = await startServer(
        { STORE: 'redis', REDIS_URL: `redis://127.0.0.1:${port}` },
        { waitReady: false }
      )
      for (let waited = 0; waited < 15_000; waited += 100) {
        if (/redis unreachable at startup; retrying/.test(server.output())) break
        await sleep(100)
      }
      assert.equal(server.child.exitCode, null, server.output())
      assert.match(server.output(), /ECONNREFUSED.*redis unreachable at startup; retrying/)
      assert.equal(
        await request(server.url, 'GET', '/livez').catch(() => 'not listening'),
        'not listening'
      )
      redis = await startRedisServer(port, dir)
      const started = performance.now()
      let status = 0
      while (performance.now() - started < 10_000 && status !== 200) {
        status = await request(server.url, 'GET', '/readyz').then(
          (res) => res.status,
          () => 0
        )
        if (status !== 200) await sleep(50)
      }
      assert.equal(status, 200)
      console.log(
        `late Redis: server ready ${(performance.now() - started).toFixed(0)} ms after Redis answered`
      )
      const round = await request(server.url, 'POST', '/v1/sessions/late/rounds', {
        tool_calls: [bashCall('a')],
      })
      assert.equal(round.status, 200)
    })
  })
}
