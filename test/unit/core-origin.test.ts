/**
 * A session's origin and labels (SPEC §3 "Who and where"): filled once, never rewritten,
 * credentials never stored, labels bounded.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  EMPTY_ORIGIN,
  labelsProblem,
  mergeLabels,
  mergeOrigin,
  originLine,
  sameOrigin,
  withoutCredentials,
} from '../../src/core/origin.js'

describe('Origin', () => {
  it('Should fill unknown fields from the strongest hint first and never rewrite a set one', () => {
    const first = mergeOrigin(
      null,
      { user: 'ada' },
      { user: 'mallory', host: 'laptop', cwd: '/src/api', agent: 'claude-code' }
    )
    assert.deepEqual(first, {
      ...EMPTY_ORIGIN,
      user: 'ada',
      host: 'laptop',
      cwd: '/src/api',
      agent: 'claude-code',
    })
    const later = mergeOrigin(first, { host: 'other', model: 'claude-opus', branch: ' main ' })
    assert.equal(later.host, 'laptop')
    assert.equal(later.model, 'claude-opus')
    assert.equal(later.branch, 'main')
    assert.equal(sameOrigin(later, mergeOrigin(later, { host: 'x' })), true)
    assert.equal(sameOrigin(first, later), false)
  })

  it('Should drop credentials from a repo URL and keep other forms as given', () => {
    assert.equal(
      withoutCredentials('https://user:tok@github.com/acme/api.git'),
      'https://github.com/acme/api.git'
    )
    assert.equal(withoutCredentials('ssh://git@host:22/acme/api'), 'ssh://host:22/acme/api')
    assert.equal(withoutCredentials('git@github.com:acme/api.git'), 'git@github.com:acme/api.git')
    assert.equal(withoutCredentials('acme/api'), 'acme/api')
    const stored = mergeOrigin(null, { repo: 'https://x-access-token:ghs_abc@github.com/a/b' })
    assert.equal(stored.repo, 'https://github.com/a/b')
  })

  it('Should drop credentials wherever a remote carries them: scp user, query, a password with /', () => {
    const cases: [string, string][] = [
      // an scp-like remote keeps only the conventional git@ (the forges' SSH account, no secret)
      ['ghp_abc123@github.com:acme/api.git', 'github.com:acme/api.git'],
      ['ada:s3cret@github.com:acme/api.git', 'github.com:acme/api.git'],
      ['git@github.com:acme/api.git', 'git@github.com:acme/api.git'],
      // query and fragment dropped whole
      ['https://github.com/acme/api.git?access_token=ghp_x', 'https://github.com/acme/api.git'],
      [
        'https://gitlab.com/acme/api.git?private_token=x&ref=main',
        'https://gitlab.com/acme/api.git',
      ],
      ['https://github.com/acme/api.git#token=x', 'https://github.com/acme/api.git'],
      ['git@github.com:acme/api.git?token=x', 'git@github.com:acme/api.git'],
      // a password with a / (or ? #) in it, unescaped
      ['https://u:pa/ss@host/x', 'https://host/x'],
      ['https://ada:pa/ss/w0rd@github.com/acme/api.git', 'https://github.com/acme/api.git'],
      ['https://ada:pa?ss@github.com/acme/api.git', 'https://github.com/acme/api.git'],
      ['https://ada:p@ss@github.com/acme/api.git', 'https://github.com/acme/api.git'],
      ['ssh://u:p/w@[::1]:22/a', 'ssh://[::1]:22/a'],
      // no credentials: as given
      ['https://github.com/acme/api@v1', 'https://github.com/acme/api@v1'],
      ['https://localhost:8080/acme/api', 'https://localhost:8080/acme/api'],
      ['host:acme/api', 'host:acme/api'],
      ['/home/ada/api', '/home/ada/api'],
    ]
    for (const [given, stored] of cases) assert.equal(withoutCredentials(given), stored, given)
    assert.equal(
      mergeOrigin(null, { repo: 'ghp_abc@github.com:acme/api.git' }).repo,
      'github.com:acme/api.git'
    )
  })

  it('Should strip C0 and C1 controls and every bidi control from origin fields', () => {
    const bidi = [
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u202e',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u200e',
      '\u200f',
      '\u061c',
    ]
    for (const char of [...bidi, '\u0007', '\u001b', '\u007f', '\u0085', '\u009b']) {
      const origin = mergeOrigin(null, { user: `ad${char}a`, branch: `main${char}` })
      assert.equal(origin.user, 'ada', JSON.stringify(char))
      assert.equal(origin.branch, 'main', JSON.stringify(char))
    }
  })

  it('Should ignore empty and control-character-only hints, and bound long ones', () => {
    const origin = mergeOrigin(null, { user: '  ', host: '\u202e\u0007', cwd: 'x'.repeat(2000) })
    assert.equal(origin.user, null)
    assert.equal(origin.host, null)
    assert.equal(origin.cwd?.length, 512)
  })

  it('Should render user@host · repo (branch)', () => {
    const origin = mergeOrigin(null, { user: 'ada', host: 'lap', repo: 'acme/api', branch: 'main' })
    assert.equal(originLine(origin), 'ada@lap · acme/api (main)')
    assert.equal(originLine(mergeOrigin(null, { repo: 'acme/api' })), 'acme/api')
    assert.equal(originLine(null), '')
  })
})

describe('Labels', () => {
  it('Should refuse bad names, non-string or long values, and more than 16', () => {
    assert.equal(labelsProblem({ team: 'core', 'ci.job': '42' }), null)
    assert.match(labelsProblem({ Team: 'x' }) ?? '', /label name 'Team'/)
    assert.match(labelsProblem({ team: 3 }) ?? '', /must be a string/)
    assert.match(labelsProblem({ team: 'x'.repeat(257) }) ?? '', /longer than 256/)
    for (const value of [
      'a\u202eb',
      'x\u2066y\u2069',
      'a\u200fb',
      'a\u061cb',
      'bell\u0007',
      'c1\u0085',
      'del\u007f',
    ]) {
      assert.match(labelsProblem({ team: value }) ?? '', /control or bidi/, JSON.stringify(value))
    }
    // other format characters are text: an emoji sequence's zero-width joiner
    assert.equal(labelsProblem({ team: 'dev 👩\u200d💻' }), null)
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`l${i}`, 'v']))
    assert.match(labelsProblem(many) ?? '', /at most 16/)
  })

  it('Should add new names and never change a set value', () => {
    const labels = mergeLabels({ team: 'core' }, { team: 'other', ticket: 'T-1' })
    assert.deepEqual(labels, { team: 'core', ticket: 'T-1' })
  })
})
