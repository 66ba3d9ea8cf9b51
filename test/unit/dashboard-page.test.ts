import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseAuthKeys } from '../../src/http/auth.js'
import {
  DASHBOARD_ENTRY,
  DASHBOARD_MODULES,
  DASHBOARD_STYLE,
  DASHBOARD_VERSION,
  dashboardHtml,
} from '../../src/http/dashboard/page.js'
import { makeTestApp } from '../helpers.js'

const digest = (source: string | Uint8Array) => createHash('sha256').update(source).digest('base64')
const hash = (source: string | Uint8Array) => `'sha256-${digest(source)}'`
const modulePath = (name: string) => `/dashboard/${DASHBOARD_VERSION}/${name}`
const sources = () => [...DASHBOARD_MODULES.values()].map((m) => m.source)

describe('GET / (dashboard)', () => {
  it('Should serve the whole page and its modules without a key, even when keys are configured', async () => {
    const t = makeTestApp({
      keys: parseAuthKeys('acme:viewer:viewer-key-123'),
      staleAfterMs: 60_000,
    })
    const res = await t.call('GET', '/')
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/)
    assert.equal(res.headers.get('cache-control'), 'no-store')
    assert.match(res.text, /data-stale-after-ms="60000"/)
    assert.match(res.text, new RegExp(`data-server-now="${t.clock.now}"`))
    // self-contained: no stylesheet, font or script from anywhere but this service's modules
    assert.doesNotMatch(res.text, /<link[^>]+stylesheet|https?:\/\//)
    const loaded = [...res.text.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]*)"/g)]
      .map((m) => m[1])
      .filter((url) => url !== 'data:,')
    assert.deepEqual(
      loaded.sort(),
      [...DASHBOARD_MODULES.keys()].map(modulePath).sort(),
      'the page loads each module and nothing else'
    )
    for (const url of loaded) {
      const module = await t.call('GET', url)
      assert.equal(module.status, 200, url)
    }
    const api = await t.call('GET', '/v1/sessions')
    assert.equal(api.status, 401)
  })

  it('Should admit by hash exactly its import map and its modules, and its inline style', async () => {
    const t = makeTestApp()
    const res = await t.call('GET', '/')
    const csp = res.headers.get('content-security-policy') ?? ''
    assert.match(csp, /default-src 'none'/)
    assert.match(csp, /connect-src 'self'/)
    assert.doesNotMatch(csp, /unsafe-/)
    const inline = [...res.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].filter(
      (m) => m[2] !== ''
    )
    assert.equal(inline.length, 1, 'one inline script')
    assert.match(inline[0][1], /type="importmap"/)
    const importMap = JSON.parse(inline[0][2]) as { integrity: Record<string, string> }
    const style = /<style>([\s\S]*?)<\/style>/.exec(res.text)![1]
    assert.equal(style, DASHBOARD_STYLE)

    const scriptSrc = /script-src ([^;]*)/.exec(csp)![1].split(' ')
    const expected = [hash(inline[0][2])]
    for (const name of DASHBOARD_MODULES.keys()) {
      const served = await t.app.request(modulePath(name))
      const bytes = new Uint8Array(await served.arrayBuffer())
      expected.push(hash(bytes))
      // the browser checks the served bytes against both: the import map's and the CSP's
      assert.equal(importMap.integrity[modulePath(name)], `sha256-${digest(bytes)}`, name)
    }
    assert.deepEqual(scriptSrc.sort(), expected.sort())
    const entry = new RegExp(
      `<script type="module" src="${modulePath(DASHBOARD_ENTRY)}" integrity="sha256-[^"]+"></script>`
    )
    assert.match(res.text, entry)
    assert.ok(csp.includes(`style-src ${hash(style)}`))
  })

  it('Should serve each module as JavaScript, cached for good under a path that changes with it', async () => {
    const t = makeTestApp()
    for (const module of DASHBOARD_MODULES.values()) {
      const res = await t.app.request(modulePath(module.name))
      assert.equal(res.status, 200)
      assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8')
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable')
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
      assert.equal(await res.text(), module.source)
      const etag = res.headers.get('etag')!
      assert.match(etag, /^"[A-Za-z0-9+/=]+"$/)
      const again = await t.app.request(modulePath(module.name), {
        headers: { 'If-None-Match': `W/${etag}, "other"` },
      })
      assert.equal(again.status, 304)
      assert.equal(await again.text(), '')
    }
    const entry = modulePath(DASHBOARD_ENTRY)
    for (const path of [
      entry.replace(DASHBOARD_VERSION, '0000000000000000'),
      modulePath('nope.js'),
      modulePath('__proto__'),
      modulePath('constructor'),
      modulePath('..%2Fpage.ts'),
    ]) {
      const res = await t.app.request(path)
      assert.equal(res.status, 404, path)
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/)
    }
    assert.match(DASHBOARD_VERSION, /^[0-9a-f]{16}$/)
  })

  it('Should have every element the script looks up by id, the Waiting filter and the observe boxes', () => {
    const html = dashboardHtml({ staleAfterMs: 60_000, serverNow: 0 })
    const ids = new Set([...html.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]))
    const named = sources().flatMap((source) =>
      [...source.matchAll(/(?:\$|inputOf|dialogOf)\('([A-Za-z0-9-]+)'\)/g)].map((m) => m[1])
    )
    assert.ok(named.length > 30, `${named.length} ids`)
    // the one id the script gives an element it builds (the details' "Last update")
    const built = ['detail-updated']
    for (const id of named) {
      if (!built.includes(id)) assert.ok(ids.has(id), `the page has no #${id}`)
    }
    // each state the rows count has its filter and count: Waiting apart from Stale
    for (const filter of ['all', 'working', 'waiting', 'stale', 'ended', 'done']) {
      assert.match(html, new RegExp(`data-filter="${filter}"`))
      assert.ok(ids.has(`count-${filter}`), `the page has no #count-${filter}`)
    }
    for (const id of ['detail-waiting', 'detail-notools', 'detail-pending', 'edit-owned'])
      assert.ok(ids.has(id), `the page has no #${id}`)
  })

  // that node parses each module (node --check, a child process) is
  // test/integration/dashboard-modules.test.ts's
  it('Should ship modules that import only each other and build no markup from strings', () => {
    for (const module of DASHBOARD_MODULES.values()) {
      const specifiers = module.source.matchAll(
        /^(?:import|export)\b[^'"]*?\bfrom '([^']+)'|^import '([^']+)'/gm
      )
      for (const [, from, bare] of specifiers) {
        const specifier = from ?? bare
        assert.ok(
          specifier.startsWith('./') && DASHBOARD_MODULES.has(specifier.slice(2)),
          `${module.name} imports ${specifier}`
        )
      }
      assert.doesNotMatch(module.source, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/)
      assert.doesNotMatch(module.source, /<\/script/i)
    }
    assert.doesNotMatch(DASHBOARD_STYLE, /<\/style/i)
  })

  it('Should ship the webhooks panel hidden until the role allows it, its module served and admitted by hash', async () => {
    const html = dashboardHtml({ staleAfterMs: 60_000, serverNow: 0 })
    // hidden in the page itself: an agent or viewer key never sees it, even before whoami answers
    assert.match(html, /<section id="webhooks"[^>]*\bhidden\b/)
    assert.match(html, /<details id="webhooks-panel">/)
    const module = DASHBOARD_MODULES.get('webhooks.js')
    assert.ok(module, 'main.js imports webhooks.js')
    const t = makeTestApp({ keys: parseAuthKeys('acme:admin:admin-key-123') })
    const res = await t.call('GET', '/')
    assert.ok(
      (res.headers.get('content-security-policy') ?? '').includes(`'${module.integrity}'`),
      'the CSP admits webhooks.js by its hash'
    )
    assert.equal((await t.app.request(modulePath('webhooks.js'))).status, 200)
    // the panel asks only after the role check, and never shows a webhook's secret
    assert.match(module.source, /canManageWebhooks\(\)/)
    assert.doesNotMatch(module.source, /\.secret\b/)
  })
})
