/**
 * The pieces of a webhook delivery: Standard Webhooks signatures (verified with the
 * `standardwebhooks` package), SSRF refusals, the pinned connect, bounds on time and on what is
 * kept of a reply, the retry schedule and the two body formats.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { newSecret, signatureHeader } from '../../src/alerts/signature.js'
import { isPrivateAddress, urlProblem, type Resolver } from '../../src/alerts/target.js'
import { attemptDelivery } from '../../src/alerts/send.js'
import { nextAttemptAt, parseRetrySchedule } from '../../src/alerts/retry-schedule.js'
import { slackBody, standardBody, type AlertPayload } from '../../src/alerts/formats.js'

interface Received {
  headers: IncomingMessage['headers']
  body: string
  remote: string | undefined
}

/** A receiver on a loopback address; `reply` decides each answer. */
async function receiver(
  host: string,
  reply: (req: IncomingMessage) => { status: number; body?: string } | 'hang'
) {
  const received: Received[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      received.push({ headers: req.headers, body, remote: req.socket.localAddress })
      const answer = reply(req)
      if (answer === 'hang') return
      res.writeHead(answer.status, { 'content-type': 'text/plain' })
      res.end(answer.body ?? '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const { port } = server.address() as AddressInfo
  return {
    received,
    port,
    url: `http://${host}:${port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

const PAYLOAD: AlertPayload = {
  type: 'session.waiting',
  at: Date.parse('2026-12-02T10:00:00Z'),
  session: {
    session_id: 'claude:9b23f2c9',
    state: 'waiting',
    progress: { total: 3, completed: 1, percent: 33 },
    current: { content: 'Run the <migrations> *now*' },
    origin: { user: 'ada', host: 'laptop', repo: 'acme/api', branch: 'main', agent: 'claude-code' },
  },
  waiting: { reason: 'permission_prompt', message: 'Claude needs your permission to use Bash' },
  url: 'https://todos.example.com/#s=claude:9b23f2c9',
}

describe('Standard Webhooks signatures', () => {
  it('Should verify with the standardwebhooks package, with one secret and during a rotation', () => {
    const [oldSecret, newer] = [newSecret(), newSecret()]
    assert.match(oldSecret, /^whsec_[A-Za-z0-9+/]{32}$/)
    const body = standardBody(PAYLOAD)
    const timestamp = Math.floor(Date.now() / 1000)
    const id = 'msg_2kd9Fq'
    for (const secrets of [[oldSecret], [newer, oldSecret]]) {
      const headers = {
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, id, timestamp, body),
      }
      for (const secret of secrets) {
        assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body))
      }
      assert.throws(() => new Webhook(newSecret()).verify(body, headers))
    }
  })
})

describe('Webhook targets', () => {
  it('Should tell private, loopback, link-local and metadata addresses from public ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::7f00:1',
      '224.0.0.1',
      // the IPv4-embedding forms are refused whole, whatever IPv4 address they carry
      '::808:808',
      '::ffff:8.8.8.8',
      '::ffff:0:808:808',
      '64:ff9b::808:808',
      '64:ff9b:1::808:808',
      '2002:808:808::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      'fec0::1',
    ]) {
      assert.equal(isPrivateAddress(address), true, address)
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '2001:4860::8888']) {
      assert.equal(isPrivateAddress(address), false, address)
    }
  })

  it('Should accept only http(s) URLs without credentials', () => {
    assert.equal(urlProblem('https://hooks.slack.com/services/T/B/x'), null)
    assert.match(urlProblem('ftp://example.com/') ?? '', /http\(s\)/)
    assert.match(urlProblem('not a url') ?? '', /absolute/)
    assert.match(urlProblem('https://user:tok@example.com/') ?? '', /credentials/)
  })
})

describe('One delivery attempt', () => {
  let ok: Awaited<ReturnType<typeof receiver>>
  before(async () => {
    ok = await receiver('127.0.0.1', () => ({ status: 204 }))
  })
  after(() => ok.close())

  const attempt = (url: string, extra: Partial<Parameters<typeof attemptDelivery>[0]> = {}) =>
    attemptDelivery({
      url,
      headers: { 'content-type': 'application/json' },
      body: standardBody(PAYLOAD),
      timeoutMs: 2000,
      allowPrivate: true,
      ...extra,
    })

  it('Should deliver to a receiver that answers 2xx', async () => {
    const result = await attempt(ok.url)
    assert.deepEqual(result, { ok: true, status: 204, error: null, excerpt: '', refused: false })
    assert.equal(ok.received.at(-1)?.body, standardBody(PAYLOAD))
  })

  it('Should refuse loopback targets, also by a name that resolves to 127.0.0.1, unless allowed', async () => {
    const before = ok.received.length
    const literal = await attempt(ok.url, { allowPrivate: false })
    assert.equal(literal.refused, true)
    assert.match(literal.error ?? '', /127\.0\.0\.1.*WEBHOOK_ALLOW_PRIVATE/)
    const rebound: Resolver = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }])
    const named = await attempt(`http://hooks.attacker.example:${ok.port}/x`, {
      allowPrivate: false,
      resolver: rebound,
    })
    assert.equal(named.refused, true)
    const system = await attempt(`http://localhost:${ok.port}/x`, { allowPrivate: false })
    assert.equal(system.refused, true)
    // one private address among public ones refuses the name
    const mixed: Resolver = () =>
      Promise.resolve([
        { address: '93.184.216.34', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ])
    const metadata = await attempt('http://mixed.example/', {
      allowPrivate: false,
      resolver: mixed,
    })
    assert.match(metadata.error ?? '', /169\.254\.169\.254/)
    assert.equal(ok.received.length, before, 'nothing reached the receiver')
  })

  it('Should connect to the address it checked, whatever DNS answers next', async () => {
    const pinned = await receiver('127.0.0.2', () => ({ status: 200 }))
    try {
      let calls = 0
      // the first answer passes the check; any later one points elsewhere (nothing listens there)
      const swapping: Resolver = () =>
        Promise.resolve([{ address: calls++ === 0 ? '127.0.0.2' : '127.0.0.3', family: 4 }])
      const result = await attempt(`http://swap.example:${pinned.port}/hook`, {
        resolver: swapping,
      })
      assert.equal(result.ok, true, result.error ?? '')
      assert.equal(calls, 1)
      assert.equal(pinned.received[0].remote, '127.0.0.2')
      assert.equal(pinned.received[0].headers.host, `swap.example:${pinned.port}`)
    } finally {
      await pinned.close()
    }
  })

  it('Should fail a receiver that hangs within the timeout, and not follow redirects', async () => {
    const hang = await receiver('127.0.0.1', () => 'hang')
    const moved = await receiver('127.0.0.1', () => ({ status: 307 }))
    try {
      const started = Date.now()
      const hung = await attempt(hang.url, { timeoutMs: 300 })
      assert.equal(hung.ok, false)
      assert.match(hung.error ?? '', /timed out after 300 ms/)
      assert.ok(Date.now() - started < 5000)
      const redirect = await attempt(moved.url)
      assert.deepEqual([redirect.ok, redirect.status], [false, 307])
    } finally {
      await hang.close()
      await moved.close()
    }
  })

  it("Should keep nothing of a receiver's reply but its status", async () => {
    const noisy = await receiver('127.0.0.1', () => ({
      status: 500,
      body: `internal-admin-token=hunter2 <html>${'x'.repeat(100_000)}</html>`,
    }))
    try {
      const result = await attempt(noisy.url)
      assert.deepEqual(result, {
        ok: false,
        status: 500,
        error: 'HTTP 500',
        excerpt: '',
        refused: false,
      })
      assert.doesNotMatch(JSON.stringify(result), /hunter2|xxx/)
    } finally {
      await noisy.close()
    }
  })

  it('Should refuse an address of one of this machine’s interfaces, by name too', async () => {
    const local = () => ['203.0.113.9', 'fe80::1', '2001:db8::5']
    const toLocal: Resolver = () => Promise.resolve([{ address: '203.0.113.9', family: 4 }])
    for (const [url, resolver] of [
      ['http://203.0.113.9/hook', undefined],
      ['http://[2001:db8::5]/hook', undefined],
      ['http://lan-name.example/hook', toLocal],
    ] as const) {
      const result = await attempt(url, {
        allowPrivate: false,
        localAddresses: local,
        resolver,
        timeoutMs: 500,
      })
      assert.equal(result.refused, true, `${url}: ${result.error}`)
      assert.match(result.error ?? '', /an address of this machine.*WEBHOOK_ALLOW_PRIVATE/)
    }
  })
})

describe('Retry schedule', () => {
  it('Should parse WEBHOOK_RETRY_SCHEDULE and say when the next attempt is due', () => {
    assert.deepEqual(parseRetrySchedule(undefined), [5, 30, 120, 600, 3600, 10800])
    assert.deepEqual(parseRetrySchedule(' 1, 2 ,3'), [1, 2, 3])
    assert.throws(() => parseRetrySchedule('5,0'), /entry 2/)
    assert.throws(() => parseRetrySchedule('5,1e3'), /entry 2/)
    assert.equal(nextAttemptAt(1, 1000, [5, 30]), 6000)
    assert.equal(nextAttemptAt(2, 6000, [5, 30]), 36_000)
    assert.equal(nextAttemptAt(3, 36_000, [5, 30]), null)
  })
})

describe('Body formats', () => {
  it('Should build the standard body and a one-line Slack text without markup from the list', () => {
    const standard = JSON.parse(standardBody(PAYLOAD))
    assert.deepEqual(Object.keys(standard), ['type', 'timestamp', 'data'])
    assert.equal(standard.timestamp, '2026-12-02T10:00:00.000Z')
    assert.deepEqual(Object.keys(standard.data), ['session', 'waiting', 'url'])
    const { text } = JSON.parse(slackBody(PAYLOAD))
    assert.equal(
      text,
      'claude-code claude:9b23f2c9 waits for you (permission_prompt) · by ada@laptop · in acme/api (main) · 1/3 done · now: Run the &lt;migrations&gt; now <https://todos.example.com/#s=claude:9b23f2c9|open>'
    )
    assert.doesNotMatch(text, /\n/)
  })

  it('Should escape every value from an agent or a request in the Slack line: no mention, no link', () => {
    const evil = '<!channel> <https://evil.example/phish|click> & *bold*'
    const session = {
      session_id: `claude:${evil}`,
      state: 'waiting',
      progress: { total: 3, completed: 1, percent: 33 },
      current: { content: evil },
      origin: { user: evil, host: evil, repo: evil, branch: evil, agent: evil },
    }
    const payloads: AlertPayload[] = [
      { ...PAYLOAD, session, waiting: { reason: evil, message: evil } },
      {
        ...PAYLOAD,
        type: 'session.ended',
        session,
        waiting: null,
        ended: { outcome: evil, detail: evil, unfinished: [evil] },
      },
      { ...PAYLOAD, type: 'session.ended', session, ended: { outcome: evil } },
      { ...PAYLOAD, type: 'session.stale', session, url: `https://todos.example.com/#s=${evil}` },
    ]
    for (const payload of payloads) {
      const { text } = JSON.parse(slackBody(payload)) as { text: string }
      // the only markup left is the service's own link
      const markup = text.match(/<[^>]*>/g) ?? []
      assert.ok(markup.length <= 1, text)
      for (const link of markup) {
        assert.match(link, /^<https:\/\/todos\.example\.com\/[^<>|]*\|open>$/)
      }
      const words = text.replace(/ <[^>]*>$/, '')
      assert.doesNotMatch(words, /<|>|&(?!amp;|lt;|gt;)|\*bold\*/, text)
      assert.match(
        text,
        /&lt;!channel&gt; &lt;https:\/\/evil\.example\/phish\|click&gt; &amp; bold/
      )
    }
    const [waiting, ended] = payloads.map(
      (p) => (JSON.parse(slackBody(p)) as { text: string }).text
    )
    // the agent, the reason and the outcome too, not only the list's text
    assert.match(waiting, /^&lt;!channel&gt; .* waits for you \(&lt;!channel&gt; /)
    assert.match(ended, / ended \(&lt;!channel&gt; .*, 1 unfinished\)/)
  })
})
