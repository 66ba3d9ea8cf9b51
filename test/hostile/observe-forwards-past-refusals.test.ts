/**
 * One refused delivery costs `observe` that delivery, not the rest of the run: after a 403 (a
 * tenant's session quota, a read-only key), a 409 or a 413 the next lines are still forwarded (it
 * used to stop for good on the first 403). Only what no later attempt can change stops it: 401 (a
 * key the service does not know) and 404 (no such route), see test/e2e/cli-observe.test.ts. A 429
 * or 503 is retried no sooner than its Retry-After asks, and never past the flush timeout.
 */
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startRecorder, type Recorder } from '../agents/recorder.js'
import { nodeScript, runObserve } from './observe-support.js'

const CODEX_STREAM = fileURLToPath(
  new URL('../fixtures/ingest/codex/real-plan.ndjson', import.meta.url)
)
const LINES = readFileSync(CODEX_STREAM, 'utf8').split('\n').filter(Boolean)

/**
 * A Codex stream whose first two lines each wait until the service has seen one more ingest
 * request, so that each goes alone in a request of its own (for 5 s at most: a run that stopped
 * forwarding fails the test instead of hanging it).
 */
const gatedAgent = (recorder: Recorder) =>
  nodeScript(`
    const lines = ${JSON.stringify(LINES)}
    const write = (text) => new Promise((resolve) => process.stdout.write(text, resolve))
    const until = Date.now() + 5000
    const seen = async (n) => {
      while ((await fetch('${recorder.url}/seen/' + n)).status !== 200 && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 10))
    }
    ;(async () => {
      for (let i = 0; i < 2; i++) {
        await write(lines[i] + '\\n')
        await seen(i + 1)
      }
      await write(lines.slice(2).join('\\n') + '\\n')
    })()
  `)

describe('hostile: observe forwards past a refused delivery', () => {
  let recorder: Recorder
  before(async () => {
    recorder = await startRecorder()
  })
  after(() => recorder.close())

  for (const status of [403, 409, 413]) {
    it(`Should forward the lines after two refused with ${status}, saying so once`, async () => {
      recorder.requests.length = 0
      recorder.respond((req) => {
        const seen = recorder.posts('/v1/ingest/').length
        if (req.method === 'GET' && req.path.startsWith('/seen/'))
          return { status: seen >= Number(req.path.slice('/seen/'.length)) ? 200 : 425 }
        if (req.path.startsWith('/v1/ingest/') && seen <= 2)
          return { status, body: { status, detail: `refused ${status}` } }
        return undefined
      })
      const { code, err } = await runObserve(recorder, { command: gatedAgent(recorder) })
      assert.equal(code, 0)
      const posts = recorder.posts('/v1/ingest/').map((r) => r.body.split('\n').filter(Boolean))
      assert.deepEqual(posts.slice(0, 2), [[LINES[0]], [LINES[1]]])
      assert.deepEqual(posts.slice(2).flat(), LINES.slice(2), 'every later line was forwarded')
      const said = err.text().match(new RegExp(`refused 1 line\\(s\\) \\(${status}`, 'g'))
      assert.equal(said?.length, 1, err.text())
      assert.doesNotMatch(err.text(), /runs on unobserved/)
    })
  }
})

/** A service that answers its first ingest request `status` with `Retry-After`, the rest 200. */
async function busyService(status: number, retryAfter: string, always = false) {
  const hits: number[] = []
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      if (req.url?.startsWith('/v1/ingest/')) {
        hits.push(Date.now())
        if (always || hits.length === 1) {
          res.writeHead(status, { 'content-type': 'application/json', 'retry-after': retryAfter })
          res.end('{"detail":"busy"}')
          return
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const close = () => {
    server.closeAllConnections()
    server.close()
  }
  return { url, hits, close }
}

describe('hostile: observe waits as long as Retry-After asks, within bounds', () => {
  for (const status of [429, 503]) {
    it(`Should retry a ${status} no sooner than its Retry-After, then deliver`, async () => {
      const service = await busyService(status, '1')
      try {
        const { code } = await runObserve(service, {
          command: nodeScript(`process.stdout.write(${JSON.stringify(LINES[0] + '\n')})`),
        })
        assert.equal(code, 0)
        assert.ok(service.hits.length >= 2, 'retried')
        const waited = service.hits[1] - service.hits[0]
        // the backoff of these tests is 100 ms at most: only the header makes it wait a second
        assert.ok(waited >= 900, `retried after ${waited} ms, Retry-After said 1 s`)
      } finally {
        service.close()
      }
    })
  }

  it('Should give up at the flush timeout however long Retry-After asks', async () => {
    const service = await busyService(429, '3600', true)
    try {
      const { code, err, ms } = await runObserve(service, {
        command: nodeScript(`process.stdout.write(${JSON.stringify(LINES[0] + '\n')})`),
        flushTimeoutMs: 300,
      })
      assert.equal(code, 0)
      assert.ok(ms < 5000, `took ${ms} ms`)
      assert.match(err.text(), /could not be delivered before the flush timeout/)
    } finally {
      service.close()
    }
  })
})
