/**
 * End to end: two server processes on one Redis serve the same sessions; one of them is killed
 * with SIGKILL under load and the other keeps serving, losing no acknowledged round.
 */
import { eventually } from '../eventually.js'
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

const bashCall = (id: string) => ({ id, name: 'bash', input: { cmd: 'true' } })

const todoCall = (id: string, n: number) => ({
  id,
  name: 'todo',
  input: {
    items: [
      { id: '1', text: `Plan ${n}`, status: 'completed' },
      { id: '2', text: `Build ${n}`, status: 'in_progress' },
      { id: '3', text: `Ship ${n}`, status: 'pending' },
    ],
  },
})

const postRound = (server: ServerProcess, session: string, calls: unknown[]) =>
  request(server.url, 'POST', `/v1/sessions/${session}/rounds`, { tool_calls: calls })

if (unreachable) {
  missingRedis(`Fleet on Redis at ${TEST_REDIS_URL}`, unreachable)
} else {
  describe('A fleet of two instances on one Redis', () => {
    const prefix = uniquePrefix('fleet')
    // the load here is the point: the per-instance rate limit stays out of the way
    const env = {
      STORE: 'redis',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      RATE_LIMIT_PER_MINUTE: '0',
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

    it('Should count 120 concurrent rounds on one session split across both instances', async () => {
      const session = 'rounds-120'
      const replies = await Promise.all(
        Array.from({ length: 120 }, (_, i) =>
          postRound(i % 2 ? a : b, session, [bashCall(`toolu_${i}`)])
        )
      )
      assert.deepEqual(
        replies.filter((reply) => reply.status !== 200).map((reply) => reply.text),
        []
      )
      const versions = replies.map((reply) => reply.body.version).sort((x, y) => x - y)
      assert.deepEqual(
        versions,
        Array.from({ length: 120 }, (_, i) => i + 1)
      )
      for (const server of [a, b]) {
        const view = await request(server.url, 'GET', `/v1/sessions/${session}`)
        assert.equal(view.status, 200)
        assert.equal(view.body.round, 120)
        assert.equal(view.body.version, 120)
      }
    })

    it('Should keep 60 concurrent todo writes as 60 versions and a valid list', async () => {
      const session = 'todos-60'
      const replies = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          postRound(i % 2 ? a : b, session, [todoCall(`toolu_${i}`, i)])
        )
      )
      assert.deepEqual(
        replies
          .filter((reply) => reply.status !== 200 || reply.body.results[0].is_error)
          .map((r) => r.text),
        []
      )
      const view = await request(b.url, 'GET', `/v1/sessions/${session}`)
      assert.equal(view.body.version, 60)
      assert.equal(view.body.round, 60)
      const n = Number(/^Plan (\d+)$/.exec(view.body.items[0].content)?.[1])
      assert.deepEqual(
        view.body.items.map((item: { content: string; status: string }) => [
          item.content,
          item.status,
        ]),
        [
          [`Plan ${n}`, 'completed'],
          [`Build ${n}`, 'in_progress'],
          [`Ship ${n}`, 'pending'],
        ]
      )
      assert.equal(view.body.current.content, `Build ${n}`)
      const history = await request(a.url, 'GET', `/v1/sessions/${session}/history`)
      assert.equal(history.status, 200)
      const historyVersions = history.body.entries.map(
        (entry: { version: number }) => entry.version
      )
      assert.equal(historyVersions.at(-1), 60)
      assert.deepEqual(
        historyVersions,
        historyVersions.map((_: number, i: number) => 60 - historyVersions.length + 1 + i)
      )
    })

    it('Should list on one instance the sessions written through the other', async () => {
      await postRound(a, 'listed-a', [todoCall('toolu_a', 1)])
      await postRound(b, 'listed-b', [bashCall('toolu_b')])
      const page = await request(a.url, 'GET', '/v1/sessions?limit=2')
      assert.equal(page.status, 200)
      assert.deepEqual(
        page.body.sessions.map((s: { session_id: string }) => s.session_id),
        ['listed-b', 'listed-a']
      )
      assert.ok(page.body.next_cursor)
      const all = await request(b.url, 'GET', '/v1/sessions?limit=50')
      assert.deepEqual(all.body.sessions.map((s: { session_id: string }) => s.session_id).sort(), [
        'listed-a',
        'listed-b',
        'rounds-120',
        'todos-60',
      ])
      const active = await request(b.url, 'GET', '/v1/sessions?state=active')
      assert.deepEqual(
        active.body.sessions.map((s: { session_id: string }) => s.session_id),
        ['listed-b', 'listed-a', 'todos-60', 'rounds-120']
      )
      const done = await request(b.url, 'GET', '/v1/sessions?state=done')
      assert.deepEqual(done.body.sessions, [])
    })

    it('Should stream on one instance the changes written through the other (SSE)', async () => {
      const session = 'streamed'
      assert.equal((await postRound(b, session, [bashCall('toolu_s0')])).status, 200)
      const abort = new AbortController()
      const res = await fetch(`${a.url}/v1/sessions/${session}/events`, { signal: abort.signal })
      assert.equal(res.status, 200)
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
      let text = ''
      /** The `event:id` of every complete SSE event so far (heartbeat comments left out). */
      const events = () =>
        text
          .split('\n\n')
          .slice(0, -1)
          .map((block) => {
            const field = (name: string) =>
              block
                .split('\n')
                .find((line) => line.startsWith(`${name}: `))
                ?.slice(name.length + 2)
            return `${field('event')}:${field('id') ?? ''}`
          })
          .filter((event) => event !== 'undefined:')
      const until = async (wanted: string[]) => {
        const deadline = Date.now() + 5000
        while (events().length < wanted.length && Date.now() < deadline) {
          const chunk = await Promise.race([
            reader.read(),
            new Promise<null>((resolve) => setTimeout(resolve, deadline - Date.now(), null)),
          ])
          if (!chunk || chunk.done) break
          text += chunk.value
        }
        assert.deepEqual(events(), wanted)
      }
      try {
        await until(['snapshot:1'])
        await postRound(b, session, [bashCall('toolu_s1')])
        await postRound(b, session, [bashCall('toolu_s2')])
        await until(['snapshot:1', 'update:2', 'update:3'])
        assert.equal((await request(b.url, 'DELETE', `/v1/sessions/${session}`)).status, 204)
        await until(['snapshot:1', 'update:2', 'update:3', 'delete:'])
      } finally {
        abort.abort()
      }
    })

    it('Should keep serving on the survivor after kill -9 and lose no acknowledged round', async () => {
      const hot = 'kill-hot'
      const hotAcks: number[] = []
      const singleAcks: string[] = []
      let survivorFailures = 0
      let survivorAfterKill = 0
      let killed = false
      let counter = 0
      let done = false
      const worker = async (preferA: boolean) => {
        while (!done) {
          const server = preferA && !killed ? a : b
          const n = counter++
          const single = n % 3 === 0
          const session = single ? `kill-single-${n}` : hot
          try {
            const reply = await postRound(server, session, [bashCall(`toolu_${n}`)])
            if (server === b && reply.status !== 200) survivorFailures++
            if (reply.status !== 200) continue
            if (server === b && killed) survivorAfterKill++
            if (single) singleAcks.push(session)
            else hotAcks.push(reply.body.version)
          } catch (error) {
            // a connection to the killed instance fails; anything else is a failure of the survivor
            if (server === b) throw error
          }
        }
      }
      const load = Promise.all(Array.from({ length: 12 }, (_, i) => worker(i % 2 === 0)))
      // conditions, not times: a loaded machine acknowledges fewer rounds per second
      await eventually(() => hotAcks.length + singleAcks.length >= 30, 60_000)
      await a.kill()
      killed = true
      await eventually(() => survivorAfterKill >= 20, 60_000)
      done = true
      await load

      assert.equal(survivorFailures, 0)
      assert.ok(
        survivorAfterKill >= 10,
        `the survivor answered ${survivorAfterKill} rounds after the kill`
      )
      assert.equal(new Set(hotAcks).size, hotAcks.length, 'no version was acknowledged twice')
      const view = await request(b.url, 'GET', `/v1/sessions/${hot}`)
      assert.equal(view.status, 200)
      assert.ok(
        view.body.round >= hotAcks.length,
        `round ${view.body.round} < ${hotAcks.length} acknowledged`
      )
      assert.ok(view.body.version >= Math.max(...hotAcks))
      const missing: string[] = []
      for (const session of singleAcks) {
        const single = await request(b.url, 'GET', `/v1/sessions/${session}`)
        if (single.status !== 200 || single.body.round !== 1) missing.push(session)
      }
      assert.deepEqual(missing, [])
      console.log(
        `kill -9: ${hotAcks.length + singleAcks.length} acknowledged rounds, ${survivorAfterKill} by the survivor after the kill, all present`
      )
    })
  })
}
