/**
 * Group commit on SQLite: the mutations of one event-loop turn share one transaction, each in its
 * own SAVEPOINT, and nobody hears back before COMMIT.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import Database from 'better-sqlite3'
import { newSession, type Session, type SessionKey } from '../../src/core/session.js'
import { createSqliteStore } from '../../src/store/sqlite.js'
import type { SessionStore } from '../../src/store/types.js'

const CHILD_FLAG = 'AGENT_TODOS_GC_CHILD'

const bump = (store: SessionStore, key: SessionKey, now = 1_000) =>
  store.update(key, (current) => {
    const base = current ?? newSession(key, 's03', {}, now)
    const next: Session = {
      ...base,
      round: base.round + 1,
      version: base.version + 1,
      updated_at: now,
    }
    return { value: next, write: { session: next, source: 'round' as const } }
  })

const open = (path: string) =>
  createSqliteStore({
    path,
    synchronous: 'normal',
    ttlMs: 3_600_000,
    historyLimit: 50,
    now: () => 1_000,
  })

/** What another connection sees: committed state only. */
const committedVersion = (path: string, key: SessionKey): number | null => {
  const db = new Database(path, { readonly: true })
  try {
    const row = db
      .prepare<[string, string], { version: number }>(
        'SELECT version FROM sessions WHERE tenant = ? AND session_id = ?'
      )
      .get(key.tenant, key.sessionId)
    return row?.version ?? null
  } finally {
    db.close()
  }
}

if (process.env[CHILD_FLAG]) {
  // the second process of the multi-process test: bumps one session N times, then exits
  const [path, count] = process.env[CHILD_FLAG].split('|')
  const store = open(path)
  const key = { tenant: 't', sessionId: 'shared' }
  for (let i = 0; i < Number(count); i++) await Promise.all([bump(store, key), bump(store, key)])
  await store.close()
  process.exit(0)
}

describe('SQLite group commit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-todos-gc-'))
  after(() => rmSync(dir, { recursive: true, force: true }))
  let n = 0
  const freshPath = () => join(dir, `gc-${n++}.db`)

  it('Should let later mutations of a batch see earlier ones, in order', async () => {
    const store = open(freshPath())
    try {
      const key = { tenant: 't', sessionId: 's' }
      const written = await Promise.all(Array.from({ length: 20 }, () => bump(store, key)))
      assert.deepEqual(
        written.map((s) => s.version),
        Array.from({ length: 20 }, (_, i) => i + 1)
      )
      assert.equal((await store.get(key))?.round, 20)
    } finally {
      await store.close()
    }
  })

  it('Should roll back only the updater that throws and reject only its promise', async () => {
    const store = open(freshPath())
    try {
      const a = { tenant: 't', sessionId: 'a' }
      const b = { tenant: 't', sessionId: 'b' }
      await bump(store, a)
      const results = await Promise.allSettled([
        bump(store, a),
        store.update(a, () => {
          throw Object.assign(new Error('precondition failed'), { status: 412 })
        }),
        store.update(b, () => {
          throw new Error('dialect rule')
        }),
        bump(store, b),
        bump(store, a),
      ])
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled']
      )
      assert.match(String((results[1] as PromiseRejectedResult).reason), /precondition failed/)
      assert.match(String((results[2] as PromiseRejectedResult).reason), /dialect rule/)
      assert.equal((await store.get(a))?.version, 3)
      assert.equal((await store.get(a))?.round, 3)
      assert.equal((await store.get(b))?.version, 1)
      assert.deepEqual(
        (await store.history(a, 10)).map((e) => e.version),
        [1, 2, 3]
      )
    } finally {
      await store.close()
    }
  })

  it('Should undo the statements a mutation already ran when a later one of it fails', async () => {
    const path = freshPath()
    const store = open(path)
    try {
      const half = { tenant: 't', sessionId: 'half' }
      const other = { tenant: 't', sessionId: 'other' }
      await bump(store, half)
      // the session row is updated, then the history insert fails: the savepoint undoes both
      const saboteur = new Database(path)
      saboteur.exec(`CREATE TRIGGER refuse BEFORE INSERT ON history
        WHEN NEW.session_id = 'half' AND NEW.version = 2 BEGIN SELECT RAISE(ABORT, 'history refused'); END`)
      saboteur.close()
      const results = await Promise.allSettled([bump(store, half), bump(store, other)])
      assert.deepEqual(
        results.map((r) => r.status),
        ['rejected', 'fulfilled']
      )
      assert.match(String((results[0] as PromiseRejectedResult).reason), /history refused/)
      assert.equal((await store.get(half))?.version, 1)
      assert.equal(committedVersion(path, half), 1)
      assert.equal(committedVersion(path, other), 1)
    } finally {
      await store.close()
    }
  })

  it('Should resolve and emit change events only after COMMIT', async () => {
    const path = freshPath()
    const store = open(path)
    try {
      const key = { tenant: 't', sessionId: 'seen' }
      const atEvent: (number | null)[] = []
      const unsubscribe = store.subscribe((event) => {
        if (event.session_id === key.sessionId) atEvent.push(committedVersion(path, key))
      })
      const atResolve: (number | null)[] = []
      await Promise.all(
        Array.from({ length: 5 }, () =>
          bump(store, key).then(() => atResolve.push(committedVersion(path, key)))
        )
      )
      unsubscribe()
      // another connection already sees the whole batch when the first event fires
      assert.deepEqual(atEvent, [5, 5, 5, 5, 5])
      assert.deepEqual(atResolve, [5, 5, 5, 5, 5])
    } finally {
      await store.close()
    }
  })

  it('Should reject the whole batch, and announce nothing, when its transaction is lost', async () => {
    const path = freshPath()
    const store = open(path)
    try {
      await bump(store, { tenant: 't', sessionId: 'warm' })
      const saboteur = new Database(path)
      saboteur.exec(`CREATE TRIGGER doom BEFORE INSERT ON history WHEN NEW.session_id = 'doomed'
        BEGIN SELECT RAISE(ROLLBACK, 'transaction lost'); END`)
      saboteur.close()
      const heard: string[] = []
      const unsubscribe = store.subscribe((event) => heard.push(event.session_id))
      const results = await Promise.allSettled([
        bump(store, { tenant: 't', sessionId: 'before' }),
        bump(store, { tenant: 't', sessionId: 'doomed' }),
        bump(store, { tenant: 't', sessionId: 'after' }),
      ])
      unsubscribe()
      assert.deepEqual(
        results.map((r) => r.status),
        ['rejected', 'rejected', 'rejected']
      )
      assert.deepEqual(heard, [])
      for (const sessionId of ['before', 'doomed', 'after']) {
        assert.equal(committedVersion(path, { tenant: 't', sessionId }), null, sessionId)
      }
      // the store goes on working after the failed batch
      assert.equal((await bump(store, { tenant: 't', sessionId: 'later' })).version, 1)
    } finally {
      await store.close()
    }
  })

  it('Should commit and answer what was queued when the store closes', async () => {
    const path = freshPath()
    const store = open(path)
    const key = { tenant: 't', sessionId: 'closing' }
    const pending = Promise.all([bump(store, key), bump(store, key)])
    await store.close()
    assert.deepEqual(
      (await pending).map((s) => s.version),
      [1, 2]
    )
    assert.equal(committedVersion(path, key), 2)
    await assert.rejects(bump(store, key), /closed/)
  })

  it('Should lose no update when two processes write one session', async () => {
    const path = freshPath()
    const store = open(path)
    try {
      const key = { tenant: 't', sessionId: 'shared' }
      await bump(store, key)
      const rounds = 400
      const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
        env: { ...process.env, [CHILD_FLAG]: `${path}|${rounds}` },
        stdio: ['ignore', 'inherit', 'inherit'],
      })
      let running = true
      const exited = once(child, 'exit').finally(() => (running = false))
      // this process keeps writing for as long as the other one runs
      let mine = 0
      while (running) {
        await Promise.all([bump(store, key), bump(store, key)])
        mine += 2
      }
      const [code] = await exited
      assert.equal(code, 0)
      const final = await store.get(key)
      assert.equal(final?.version, 1 + mine + 2 * rounds)
      assert.equal(final?.round, 1 + mine + 2 * rounds)
    } finally {
      await store.close()
    }
  })
})
