/**
 * The origin a request's headers give, and a personal key's user winning over them.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Hono } from 'hono'
import { authenticate, hashKey, loadKeysFile } from '../../src/http/auth.js'
import type { AppEnv } from '../../src/http/context.js'
import { originHintsOf } from '../../src/http/origin-headers.js'
import { mergeOrigin } from '../../src/core/origin.js'

describe('Origin from headers', () => {
  it('Should read X-Agent-* headers, and put a keys-file user before them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keys-'))
    const file = join(dir, 'keys.json')
    writeFileSync(
      file,
      JSON.stringify({
        keys: [
          { tenant: 'acme', role: 'agent', sha256: hashKey('ada-personal-key'), user: 'ada' },
          { tenant: 'acme', role: 'agent', sha256: hashKey('shared-ci-key-1') },
        ],
      })
    )
    const app = new Hono<AppEnv>()
    app.use('*', authenticate(loadKeysFile(file)))
    app.get('/origin', (c) => c.json(mergeOrigin(null, ...originHintsOf(c))))
    const headers = {
      'X-Agent-User': 'mallory',
      'X-Agent-Host': 'build-7',
      'X-Agent-Repo': 'https://bot:ghp_secret@github.com/acme/api.git',
      'X-Agent-Branch': 'feature/x',
    }
    const personal = await app.request('/origin', {
      headers: { ...headers, Authorization: 'Bearer ada-personal-key' },
    })
    const origin = (await personal.json()) as Record<string, string | null>
    assert.equal(origin.user, 'ada')
    assert.equal(origin.host, 'build-7')
    assert.equal(origin.repo, 'https://github.com/acme/api.git')
    assert.equal(origin.branch, 'feature/x')
    const shared = await app.request('/origin', {
      headers: { ...headers, Authorization: 'Bearer shared-ci-key-1' },
    })
    assert.equal(((await shared.json()) as { user: string }).user, 'mallory')
  })
})
