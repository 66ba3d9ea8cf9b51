/**
 * A webhook must not be a way into the machine's own network, nor a way to read what is there,
 * nor a way to stall the process. Seen before: a webhook to the machine's own LAN address was
 * delivered and its deliveries log showed 200 characters of an internal service's reply; the
 * IPv4-embedding IPv6 forms (NAT64, 6to4, mapped of a public address…) passed the check; and a
 * name lookup went through getaddrinfo on libuv's threadpool of 4, so a DNS server that never
 * answers could hold every thread (file reads, crypto and zlib of the whole process behind it).
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createSocket } from 'node:dgram'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'
import { readFile } from 'node:fs/promises'
import { dnsResolver } from '../../src/alerts/resolve.js'
import { isPrivateAddress } from '../../src/alerts/target.js'
import { setTimeout as sleep } from 'node:timers/promises'
import { eventually } from '../eventually.js'
import { startAlertApp } from '../webhook-support.js'
import type { Resolver } from '../../src/alerts/resolve.js'

const ADMIN = 'acme-admin-key'
const stops: (() => Promise<void>)[] = []
after(async () => {
  for (const stop of stops.reverse()) await stop()
})

/** Waits until an asynchronous `check` holds (at most 30 s, asking every 20 ms). */
async function until(check: () => Promise<boolean>): Promise<boolean> {
  for (const end = Date.now() + 30_000; Date.now() < end; await sleep(20)) {
    if (await check()) return true
  }
  return check()
}

/** An app with webhooks whose targets are checked (private ones refused). */
function guardedApp(resolver?: Resolver) {
  const t = startAlertApp({
    authKeys: `acme:admin:${ADMIN}`,
    allowPrivate: false,
    retrySchedule: [0.1],
    resolver,
  })
  stops.push(t.stop)
  return t
}

/** The machine's own addresses, the non-private ones first (those the ranges alone let through). */
const machineAddresses = Object.values(networkInterfaces())
  .flatMap((list) => list ?? [])
  .map((info) => info.address)
  .sort((a, b) => Number(isPrivateAddress(a)) - Number(isPrivateAddress(b)))

const literalUrl = (address: string) =>
  address.includes(':') ? `http://[${address}]/hook` : `http://${address}/hook`

describe('Webhook targets that embed an IPv4 address, or are this machine', () => {
  it('Should refuse every IPv4-embedding IPv6 form at create with 422, as a literal and by name', async () => {
    const forms = [
      '::808:808', // IPv4-compatible ::8.8.8.8
      '::7f00:1', // IPv4-compatible ::127.0.0.1
      '::ffff:0:a00:1', // IPv4-translated ::ffff:0:10.0.0.1
      '::ffff:808:808', // IPv4-mapped of a public address
      '64:ff9b::7f00:1', // NAT64 well-known prefix
      '64:ff9b::808:808',
      '64:ff9b:1::a00:1', // NAT64 local-use prefix
      '2002:7f00:1::1', // 6to4 of 127.0.0.1
      '2002:808:808::1',
      'fec0::1', // site-local
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    ]
    let answer = '93.184.215.14'
    const t = guardedApp(async () => [{ address: answer, family: 6 }])
    for (const form of forms) {
      for (const url of [literalUrl(form), 'https://hooks.example.com/in']) {
        answer = form
        const res = await t.call('POST', '/v1/webhooks', { url, events: ['*'] }, ADMIN)
        assert.equal(res.status, 422, `${form} (${url}): ${res.text}`)
        assert.equal(res.body.type, 'https://agent-todos.dev/problems/webhook-target-refused')
      }
    }
    assert.deepEqual((await t.call('GET', '/v1/webhooks', undefined, ADMIN)).body.webhooks, [])
  })

  it('Should refuse every address of this machine’s interfaces at create with 422', async () => {
    assert.ok(machineAddresses.length > 0)
    const t = guardedApp()
    for (const address of machineAddresses) {
      const url = literalUrl(address)
      const res = await t.call('POST', '/v1/webhooks', { url, events: ['*'] }, ADMIN)
      assert.equal(res.status, 422, `${url}: ${res.text}`)
      if (!isPrivateAddress(address)) assert.match(res.text, /an address of this machine/)
    }
  })

  it('Should fail a delivery whose name now resolves to this machine, reaching nothing', async () => {
    let answer = '93.184.215.14'
    const t = guardedApp(async () => [{ address: answer, family: 4 }])
    const url = 'http://lan.example.com/hook'
    const hook = await t.call('POST', '/v1/webhooks', { url, events: ['*'] }, ADMIN)
    assert.equal(hook.status, 201, hook.text)
    answer = machineAddresses.find((address) => !address.includes(':')) ?? '127.0.0.1'
    await t.call('POST', `/v1/webhooks/${hook.body.id}/test`, undefined, ADMIN)
    const logged = async () =>
      (await t.call('GET', `/v1/webhooks/${hook.body.id}/deliveries`, undefined, ADMIN)).body
        .deliveries[0] as { status: string; attempts: number; last_error: string }
    let last = await logged()
    assert.ok(await until(async () => (last = await logged()).status === 'failed'))
    assert.equal(last.attempts, 1)
    assert.match(last.last_error, new RegExp(`refused: .*${answer.replace(/\./g, '\\.')}`))
  })
})

describe('What a receiver answers', () => {
  it('Should keep no part of a reply body in the deliveries log, only the status', async () => {
    const server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(500, { 'content-type': 'text/plain' })
        res.end(`internal service says: db_password=hunter2 ${'x'.repeat(5000)}`)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
    )
    const { port } = server.address() as AddressInfo
    // private targets allowed here: the receiver is on loopback
    const t = startAlertApp({ authKeys: `acme:admin:${ADMIN}`, retrySchedule: [0.05] })
    stops.push(t.stop)
    const url = `http://127.0.0.1:${port}/hook`
    const hook = await t.call('POST', '/v1/webhooks', { url, events: ['*'] }, ADMIN)
    await t.call('POST', `/v1/webhooks/${hook.body.id}/test`, undefined, ADMIN)
    const deliveries = async () =>
      (await t.call('GET', `/v1/webhooks/${hook.body.id}/deliveries`, undefined, ADMIN)).text
    let text = await deliveries()
    assert.ok(await until(async () => (text = await deliveries()).includes('"failed"')))
    assert.match(text, /"last_status":500/)
    assert.match(text, /"last_error":"HTTP 500"/)
    assert.doesNotMatch(text, /hunter2|internal service|xxxx/)
  })
})

describe('A DNS server that never answers', () => {
  it('Should time out or be cancelled without holding a libuv thread', async () => {
    // a "DNS server" on loopback that takes every query and answers none
    const silent = createSocket('udp4')
    let queries = 0
    silent.on('message', () => queries++)
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve))
    stops.push(() => new Promise<void>((resolve) => silent.close(() => resolve())))
    const server = `127.0.0.1:${(silent.address() as AddressInfo).port}`

    // eight lookups at once, twice libuv's pool of 4; bounded only by their signal here
    const resolver = dnsResolver({ servers: [server], timeoutMs: 600_000, hostsFile: null })
    const stop = new AbortController()
    let settled = 0
    const lookups = Array.from({ length: 8 }, (_, i) =>
      resolver(`silent-${i}.example.com`, { signal: stop.signal }).finally(() => settled++)
    )
    // the threadpool is free: a file read completes while every lookup still waits
    const self = await readFile(new URL(import.meta.url), 'utf8')
    assert.match(self, /never answers/)
    assert.equal(settled, 0)
    assert.ok(await eventually(() => queries >= 8))
    stop.abort()
    const results = await Promise.allSettled(lookups)
    for (const result of results) {
      assert.equal(result.status, 'rejected')
      assert.match(String((result as PromiseRejectedResult).reason), /timed out/)
    }

    // and its own bound ends a lookup without any signal
    const bounded = dnsResolver({ servers: [server], timeoutMs: 200, tries: 1, hostsFile: null })
    await assert.rejects(bounded('silent-bounded.example.com'), /timed out/)
  })

  it('Should answer names from the hosts file and localhost without DNS', async () => {
    const resolver = dnsResolver({ servers: ['127.0.0.1:9'], timeoutMs: 200, hostsFile: null })
    assert.deepEqual(
      (await resolver('LocalHost')).map((a) => a.address),
      ['127.0.0.1', '::1']
    )
    assert.deepEqual(
      (await resolver('app.localhost')).map((a) => a.address),
      ['127.0.0.1', '::1']
    )
    const { parseHostsFile } = await import('../../src/alerts/resolve.js')
    const names = parseHostsFile(
      '# comment\n10.0.0.5  registry.internal  registry # alias\nnot-an-ip bad\n::1 ip6-localhost\n'
    )
    assert.deepEqual(names.get('registry'), [{ address: '10.0.0.5', family: 4 }])
    assert.deepEqual(names.get('ip6-localhost'), [{ address: '::1', family: 6 }])
    assert.equal(names.has('bad'), false)
  })
})
