/**
 * Small pure modules called directly: the listing and history cursors (store/cursor), the
 * conditional headers (http/etag) and the environment's parsing (config).
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { listenHost, loadConfig } from '../../src/config.js'
import { conditionMatches, versionTag } from '../../src/http/etag.js'
import {
  cursorAfter,
  decodeCursor,
  decodeHistoryCursor,
  encodeCursor,
  encodeHistoryCursor,
  isBeforeCursor,
} from '../../src/store/cursor.js'
import { newSession } from '../../src/core/session.js'

const token = (text: string) => Buffer.from(text).toString('base64url')

describe('listing cursors', () => {
  it('Should round-trip as an opaque URL-safe token', () => {
    for (const cursor of [
      { updatedAt: 0, sessionId: 'a' },
      { updatedAt: 1_764_504_000_000, sessionId: 'run-42' },
      { updatedAt: Number.MAX_SAFE_INTEGER, sessionId: 'A.b_c:d-e' },
      { updatedAt: 1, sessionId: 'x'.repeat(128) },
      // texts whose base64 would end in = padding
      { updatedAt: 12, sessionId: 'ab' },
      { updatedAt: 12, sessionId: 'a' },
    ]) {
      const encoded = encodeCursor(cursor)
      assert.match(encoded, /^[A-Za-z0-9_-]+$/, 'base64url, no = padding')
      assert.deepEqual(decodeCursor(encoded), cursor)
    }
  })

  it('Should refuse what encodeCursor does not make', () => {
    for (const text of [
      '',
      ':',
      '1:',
      ':a',
      'a:b',
      '-1:a',
      '1.5:a',
      '12345678901234567:a', // 17 digits
      '1:-a',
      '1:a/b',
      `1:${'x'.repeat(129)}`,
      '1:a\n',
      ' 1:a',
      'h:1', // a history cursor
    ]) {
      assert.equal(decodeCursor(token(text)), undefined, JSON.stringify(text))
    }
    for (const raw of ['!!!', '%%', 'not a token at all']) {
      assert.equal(decodeCursor(raw), undefined, raw)
    }
  })

  it('Should put the next page after the cursor in (updated_at desc, session_id desc) order', () => {
    const cursor = { updatedAt: 100, sessionId: 'm' }
    for (const [updatedAt, sessionId, after] of [
      [99, 'z', true],
      [100, 'l', true],
      [100, 'A', true],
      [100, 'm', false],
      [100, 'n', false],
      [101, 'a', false],
    ] as const) {
      assert.equal(isBeforeCursor(updatedAt, sessionId, cursor), after, `${updatedAt} ${sessionId}`)
    }
  })

  it('Should take the cursor after a page from its last session', () => {
    const session = newSession({ tenant: 't', sessionId: 's9' }, 's03', {}, 1234)
    assert.deepEqual(cursorAfter({ ...session, updated_at: 5678 }), {
      updatedAt: 5678,
      sessionId: 's9',
    })
  })
})

describe('history cursors', () => {
  it('Should round-trip a version', () => {
    for (const version of [0, 1, 50, 999_999_999_999_999]) {
      const encoded = encodeHistoryCursor(version)
      assert.match(encoded, /^[A-Za-z0-9_-]+$/)
      assert.equal(decodeHistoryCursor(encoded), version)
    }
  })

  it('Should refuse what encodeHistoryCursor does not make', () => {
    for (const text of [
      '',
      'h:',
      'h:-1',
      'h:1.5',
      'h:x',
      'H:1',
      '1',
      'h:1\n',
      'h:1234567890123456',
    ]) {
      assert.equal(decodeHistoryCursor(token(text)), undefined, JSON.stringify(text))
    }
    // a listing cursor is not a history cursor
    assert.equal(decodeHistoryCursor(encodeCursor({ updatedAt: 1, sessionId: 'a' })), undefined)
    assert.equal(decodeHistoryCursor('!!!'), undefined)
  })
})

describe('conditionMatches', () => {
  const tag = versionTag(3)
  const cases: [header: string, current: string | null, weak: boolean, matches: boolean][] = [
    ['"3"', tag, false, true],
    ['"3"', tag, true, true],
    ['"4"', tag, false, false],
    ['"1", "2" ,"3"', tag, false, true],
    ['"1","2"', tag, true, false],
    ['*', tag, false, true],
    [' * ', tag, true, true],
    // no current representation: nothing matches, not even *
    ['*', null, false, false],
    ['"3"', null, true, false],
    // weak comparison (If-None-Match) ignores W/, strong (If-Match) does not
    ['W/"3"', tag, true, true],
    ['W/"3"', tag, false, false],
    ['"1", W/"3"', tag, true, true],
    ['w/"3"', tag, true, false],
    // an entity tag is quoted; * only counts alone
    ['3', tag, false, false],
    ['"1", *', tag, false, false],
    ['', tag, false, false],
    ['"33"', tag, false, false],
  ]
  for (const [header, current, weak, matches] of cases) {
    it(`Should ${matches ? '' : 'not '}match ${JSON.stringify(header)} against ${current ?? 'nothing'} (${weak ? 'weak' : 'strong'})`, () => {
      assert.equal(conditionMatches(header, current, weak), matches)
    })
  }

  it('Should quote a version as its entity tag', () => {
    assert.equal(versionTag(0), '"0"')
    assert.equal(versionTag(12), '"12"')
  })
})

describe('loadConfig', () => {
  it('Should default every variable', () => {
    const config = loadConfig({})
    assert.deepEqual(
      {
        PORT: config.PORT,
        HOST: listenHost(config, { openAccess: true }),
        STORE: config.STORE,
        SQLITE_PATH: config.SQLITE_PATH,
        SQLITE_SYNC: config.SQLITE_SYNC,
        SQLITE_CHECKPOINTS: config.SQLITE_CHECKPOINTS,
        REDIS_URL: config.REDIS_URL,
        REDIS_KEY_PREFIX: config.REDIS_KEY_PREFIX,
        AUTH_KEYS_FILE: config.AUTH_KEYS_FILE,
        RATE_LIMIT_PER_MINUTE: config.RATE_LIMIT_PER_MINUTE,
        READ_RATE_LIMIT_PER_MINUTE: config.READ_RATE_LIMIT_PER_MINUTE,
        MAX_STREAMS_PER_TENANT: config.MAX_STREAMS_PER_TENANT,
        MAX_STREAM_BACKLOG_BYTES: config.MAX_STREAM_BACKLOG_BYTES,
        LOG_LEVEL: config.LOG_LEVEL,
        SESSION_TTL_MS: config.SESSION_TTL_MS,
        STALE_AFTER_MS: config.STALE_AFTER_MS,
        BODY_LIMIT_BYTES: config.BODY_LIMIT_BYTES,
        HISTORY_LIMIT: config.HISTORY_LIMIT,
        SHUTDOWN_GRACE_MS: config.SHUTDOWN_GRACE_MS,
      },
      {
        PORT: 8080,
        HOST: '127.0.0.1',
        STORE: 'sqlite',
        SQLITE_PATH: './data/agent-todos.db',
        SQLITE_SYNC: 'normal',
        SQLITE_CHECKPOINTS: 'thread',
        REDIS_URL: undefined,
        REDIS_KEY_PREFIX: 'at',
        AUTH_KEYS_FILE: undefined,
        RATE_LIMIT_PER_MINUTE: 0,
        READ_RATE_LIMIT_PER_MINUTE: 0,
        MAX_STREAMS_PER_TENANT: 100,
        MAX_STREAM_BACKLOG_BYTES: 4_194_304,
        LOG_LEVEL: 'info',
        SESSION_TTL_MS: 604_800_000,
        STALE_AFTER_MS: 900_000,
        BODY_LIMIT_BYTES: 1_048_576,
        HISTORY_LIMIT: 50,
        SHUTDOWN_GRACE_MS: 10_000,
      }
    )
  })

  it('Should listen on every interface with keys and on loopback in open access, unless HOST says', () => {
    const unset = loadConfig({ HOST: '  ' })
    assert.equal(listenHost(unset, { openAccess: true }), '127.0.0.1')
    assert.equal(listenHost(unset, { openAccess: false }), '0.0.0.0')
    for (const openAccess of [true, false]) {
      assert.equal(listenHost(loadConfig({ HOST: '0.0.0.0' }), { openAccess }), '0.0.0.0')
      assert.equal(listenHost(loadConfig({ HOST: '::1' }), { openAccess }), '::1')
    }
  })

  it('Should read an empty variable as unset, and ignore variables it does not know', () => {
    const config = loadConfig({ PORT: '', STORE: '', LOG_LEVEL: '', HOME: '/root', PATH: '/bin' })
    assert.equal(config.PORT, 8080)
    assert.equal(config.STORE, 'sqlite')
    assert.equal(config.LOG_LEVEL, 'info')
    assert.equal('HOME' in config, false)
  })

  const accepted: [name: string, value: string, parsed: unknown][] = [
    ['PORT', '0', 0],
    ['PORT', '65535', 65535],
    ['PORT', ' 81 ', 81],
    ['PORT', '   ', 8080],
    ['STORE', 'memory', 'memory'],
    ['STORE', 'redis', 'redis'],
    ['SQLITE_SYNC', 'full', 'full'],
    ['SQLITE_CHECKPOINTS', 'commit', 'commit'],
    ['REDIS_KEY_PREFIX', 'prod.at:v2-x_y', 'prod.at:v2-x_y'],
    ['LOG_LEVEL', 'silent', 'silent'],
    ['MAX_STREAMS_PER_TENANT', '0', 0],
    ['MAX_STREAM_BACKLOG_BYTES', '65536', 65_536],
    ['MAX_SESSIONS_PER_TENANT', '0', 0],
    ['RATE_LIMIT_PER_MINUTE', '600', 600],
    ['SESSION_TTL_SECONDS', '1', 1],
    ['CORS_ORIGINS', ', ,,', []],
  ]
  for (const [name, value, parsed] of accepted) {
    it(`Should take ${name}=${JSON.stringify(value)}`, () => {
      assert.deepEqual(
        loadConfig({ [name]: value })[name as keyof ReturnType<typeof loadConfig>],
        parsed
      )
    })
  }

  const refused: [name: string, value: string, reason: RegExp][] = [
    ['PORT', '65536', /PORT: Too big/],
    ['PORT', '-1', /PORT: Too small/],
    ['PORT', '80.5', /PORT: .*expected int/],
    ['PORT', 'http', /PORT: .*expected number/],
    ['PORT', '0x10', /PORT: .*expected number, in decimal digits/],
    ['PORT', '1e3', /PORT: .*expected number, in decimal digits/],
    ['MAX_STREAMS_PER_TENANT', 'Infinity', /MAX_STREAMS_PER_TENANT: .*expected number/],
    ['STORE', 'mysql', /STORE: .*"sqlite"\|"memory"\|"redis"\|"postgres"/],
    ['SQLITE_SYNC', 'off', /SQLITE_SYNC/],
    ['SQLITE_CHECKPOINTS', 'off', /SQLITE_CHECKPOINTS: .*"thread"\|"commit"/],
    ['REDIS_KEY_PREFIX', '{at}', /REDIS_KEY_PREFIX: .*no braces/],
    ['REDIS_KEY_PREFIX', 'x'.repeat(65), /REDIS_KEY_PREFIX/],
    ['LOG_LEVEL', 'verbose', /LOG_LEVEL/],
    ['MAX_STREAM_BACKLOG_BYTES', '65535', /MAX_STREAM_BACKLOG_BYTES: Too small/],
    ['RATE_LIMIT_PER_MINUTE', '-1', /RATE_LIMIT_PER_MINUTE/],
    ['SESSION_TTL_SECONDS', '0', /SESSION_TTL_SECONDS: Too small/],
    ['HISTORY_LIMIT', '0', /HISTORY_LIMIT/],
    ['MAX_ITEMS', '0', /MAX_ITEMS/],
    ['AUTH_KEYS', 'acme:agent:short', /AUTH_KEYS: .*entry 1/],
  ]
  for (const [name, value, reason] of refused) {
    it(`Should refuse ${name}=${JSON.stringify(value.length > 20 ? `${value.slice(0, 8)}…` : value)}`, () => {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (error: Error) => {
          assert.match(error.message, /^invalid configuration:\n {2}/)
          assert.match(error.message, reason)
          return true
        }
      )
    })
  }

  it('Should list every invalid variable in one error, one per line', () => {
    assert.throws(
      () => loadConfig({ PORT: 'x', STORE: 'pg', HISTORY_LIMIT: '0' }),
      (error: Error) => {
        const lines = error.message.split('\n')
        assert.equal(lines[0], 'invalid configuration:')
        assert.deepEqual(
          lines
            .slice(1)
            .map((line) => line.trim().split(':')[0])
            .sort(),
          ['HISTORY_LIMIT', 'PORT', 'STORE']
        )
        return true
      }
    )
  })
})
