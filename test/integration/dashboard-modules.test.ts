/**
 * The dashboard's browser modules parse as ES modules: each goes through `node --check`, a child
 * process per module, which is why this is the integration tier's and not beside the page's other
 * checks (test/unit/dashboard-page.test.ts: what they import, no markup built from strings).
 */
import { spawnSync } from 'node:child_process'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DASHBOARD_MODULES } from '../../src/http/dashboard/page.js'

describe('GET / (dashboard): its modules', () => {
  it('Should ship modules that parse', () => {
    for (const module of DASHBOARD_MODULES.values()) {
      const check = spawnSync(process.execPath, ['--input-type=module', '--check'], {
        input: module.source,
        encoding: 'utf8',
      })
      assert.equal(check.status, 0, `${module.name}: ${check.stderr}`)
    }
  })
})
