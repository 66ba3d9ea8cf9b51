import { createHash } from 'node:crypto'
import { Script } from 'node:vm'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseAuthKeys } from '../../src/http/auth.js'
import { DASHBOARD_SCRIPT, DASHBOARD_STYLE, dashboardHtml } from '../../src/http/dashboard/page.js'
import { makeTestApp } from '../helpers.js'

const hash = (source: string) =>
  `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`

describe('GET / (dashboard)', () => {
  it('Should serve the whole page without a key, even when keys are configured', async () => {
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
    // self-contained: no external script, stylesheet or font
    assert.doesNotMatch(res.text, /<script[^>]+src=|<link[^>]+stylesheet|https?:\/\//)
    const api = await t.call('GET', '/v1/sessions')
    assert.equal(api.status, 401)
  })

  it('Should admit exactly its inline script and style through the CSP', async () => {
    const t = makeTestApp()
    const res = await t.call('GET', '/')
    const csp = res.headers.get('content-security-policy') ?? ''
    assert.match(csp, /default-src 'none'/)
    assert.match(csp, /connect-src 'self'/)
    const script = /<script>([\s\S]*?)<\/script>/.exec(res.text)![1]
    const style = /<style>([\s\S]*?)<\/style>/.exec(res.text)![1]
    assert.equal(script, DASHBOARD_SCRIPT)
    assert.equal(style, DASHBOARD_STYLE)
    assert.ok(csp.includes(`script-src ${hash(script)}`))
    assert.ok(csp.includes(`style-src ${hash(style)}`))
  })

  it('Should have every element the script looks up by id, the Waiting filter and the observe boxes', () => {
    const html = dashboardHtml({ staleAfterMs: 60_000, serverNow: 0 })
    const ids = new Set([...html.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]))
    const named = [
      ...DASHBOARD_SCRIPT.matchAll(/(?:\$|inputOf|dialogOf)\('([A-Za-z0-9-]+)'\)/g),
    ].map((m) => m[1])
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

  it('Should ship a script that parses and builds no markup from strings', () => {
    new Script(DASHBOARD_SCRIPT)
    assert.doesNotMatch(DASHBOARD_SCRIPT, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/)
    assert.doesNotMatch(DASHBOARD_SCRIPT, /<\/script/i)
    assert.doesNotMatch(DASHBOARD_STYLE, /<\/style/i)
  })
})
