/**
 * Finding 12: small ones. Docs assets named after Object.prototype members answered 500.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp } from '../helpers.js'

describe('hostile 12: small ones', () => {
  it('Should answer 404 for docs assets named after Object.prototype members', async () => {
    const t = makeTestApp()
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const res = await t.call('GET', `/docs/assets/${name}`)
      assert.equal(res.status, 404, name)
    }
  })
})

describe('hostile 12: a method check is no write', () => {
  it("Should answer a viewer's OPTIONS as an agent's: 405 with Allow, not 403", async () => {
    const { parseAuthKeys } = await import('../../src/http/auth.js')
    const keys = parseAuthKeys('acme:agent:acme-agent-key-1,acme:viewer:acme-viewer-key-1')
    const t = makeTestApp({ keys })
    const agent = await t.call('OPTIONS', '/v1/sessions/s1', undefined, {
      Authorization: 'Bearer acme-agent-key-1',
    })
    const viewer = await t.call('OPTIONS', '/v1/sessions/s1', undefined, {
      Authorization: 'Bearer acme-viewer-key-1',
    })
    assert.equal(agent.status, 405)
    assert.equal(viewer.status, agent.status)
    assert.equal(viewer.headers.get('allow'), agent.headers.get('allow'))
  })
})
