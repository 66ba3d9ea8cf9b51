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
