/**
 * Writes of the largest sessions must not stall others. One key PUTting 1 MB lists in a loop
 * held `/livez` at p99 442 ms and another tenant's reads at 1.5 s: every queued write of a turn
 * went into one transaction, each parsing, deciding and serialising its 1 MB session inside it.
 * Now a write is read, decided and serialised before its transaction, which copies the text, and
 * one transaction carries about 2 MiB (one such write and its history row): the rest wait for the
 * next turn, after the I/O of everyone else.
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { makeItem, type Item } from '../../src/core/items.js'
import { newSession, type Session, type SessionKey } from '../../src/core/session.js'
import { createGroupCommit } from '../../src/store/sqlite/group-commit.js'
import type { SessionStore } from '../../src/store/types.js'
import { openTestSqlite } from '../sqlite-support.js'

const dir = mkdtempSync(join(tmpdir(), 'large-writes-'))
after(() => rmSync(dir, { recursive: true, force: true }))

/** About 1 MB of list. */
const largeList = (tag: string): Item[] =>
  Array.from({ length: 100 }, (_, i) =>
    makeItem({ id: String(i + 1), content: `${tag} ${i} `.padEnd(9800, 'x'), status: 'pending' })
  )

const writeList = (store: SessionStore, key: SessionKey, items: Item[]) =>
  store.update(key, (current) => {
    const base = current ?? newSession(key, 'claude-todowrite', {}, 1_000)
    const next: Session = { ...base, items, version: base.version + 1, updated_at: 1_000 }
    return { value: next.version, write: { session: next, source: 'put' as const } }
  })

/** Counts event-loop turns: each setImmediate callback is one. */
function turnCounter() {
  let turns = 0
  let running = true
  const tick = () => {
    turns++
    if (running) setImmediate(tick)
  }
  setImmediate(tick)
  return {
    now: () => turns,
    stop: () => {
      running = false
    },
  }
}

describe('large writes do not stall others', () => {
  it('Should commit queued writes of ~1 MB in transactions of about 2 MiB, giving the loop back between them', async () => {
    const store = openTestSqlite(join(dir, 'split.db'))
    try {
      const keys = Array.from({ length: 6 }, (_, i) => ({ tenant: 't', sessionId: `big-${i}` }))
      // the sessions exist: the writes below are updates of 1 MB sessions
      await Promise.all(keys.map((key) => writeList(store, key, largeList('a'))))
      const heard: number[] = []
      const turns = turnCounter()
      const unsubscribe = store.subscribe(() => heard.push(turns.now()))
      await Promise.all(keys.map((key) => writeList(store, key, largeList('b'))))
      unsubscribe()
      turns.stop()
      // the change events of one transaction are emitted in one turn
      const transactions = new Set(heard).size
      assert.equal(heard.length, keys.length)
      assert.ok(
        transactions >= keys.length / 2,
        `${transactions} transactions for 6 writes of 2 MB`
      )
    } finally {
      await store.close()
    }
  })

  it('Should not parse or serialise a session inside the transaction when the row is as read', async () => {
    const store = openTestSqlite(join(dir, 'ahead.db'))
    const key = { tenant: 't', sessionId: 'big' }
    try {
      await writeList(store, key, largeList('a'))
      const parse = JSON.parse
      const stringify = JSON.stringify
      const inside: number[] = []
      let inTransaction = false
      JSON.parse = function spied(text: string, reviver?: Parameters<typeof parse>[1]) {
        if (inTransaction && text.length > 64 * 1024) inside.push(text.length)
        return parse(text, reviver) as unknown
      } as typeof JSON.parse
      JSON.stringify = function spied(...args: Parameters<typeof stringify>) {
        const text = stringify(...args)
        if (inTransaction && typeof text === 'string' && text.length > 64 * 1024)
          inside.push(text.length)
        return text
      } as typeof JSON.stringify
      try {
        const written = writeList(store, key, largeList('b'))
        // update() has read, decided and serialised by now; what runs next is the transaction
        inTransaction = true
        assert.equal(await written, 2)
      } finally {
        inTransaction = false
        JSON.parse = parse
        JSON.stringify = stringify
      }
      assert.deepEqual(inside, [], 'the transaction parsed or serialised a session')
      assert.equal((await store.get(key))?.items[1].content.startsWith('b 1 '), true)
    } finally {
      await store.close()
    }
  })

  it('Should split a group commit by the bytes its mutations write (the first always goes)', async () => {
    const db = new Database(':memory:')
    let commits = 0
    const commitsOf: number[] = []
    const group = createGroupCommit(db, {
      maxBatch: 512,
      maxBatchBytes: 2 * 1024 * 1024,
      emit: () => undefined,
      onCommit: () => commits++,
    })
    const op = () => {
      commitsOf.push(commits)
      return { value: undefined }
    }
    await Promise.all([
      group.enqueue(op, 3 * 1024 * 1024),
      group.enqueue(op, 1024 * 1024),
      group.enqueue(op, 1024 * 1024),
      group.enqueue(op, 1024 * 1024),
      group.enqueue(op, 10),
    ])
    group.close()
    db.close()
    // [3 MiB] [1 MiB, 1 MiB] [1 MiB, 10 B]
    assert.deepEqual(commitsOf, [0, 1, 1, 2, 2])
  })
})
