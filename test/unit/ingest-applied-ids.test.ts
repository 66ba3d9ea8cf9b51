import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AGENTS } from '../../src/agents/index.js'
import { DEFAULT_LIST_LIMITS } from '../../src/core/limits.js'
import type { Session } from '../../src/core/session.js'
import { applyObserved, type ApplyContext } from '../../src/ingest/apply.js'
import {
  APPLIED_DIGEST_CHARS,
  AppliedIds,
  appliedDigestOf,
  MAX_APPLIED_IDS,
} from '../../src/ingest/applied-ids.js'
import { MAX_DELIVERY_UPDATES } from '../../src/ingest/delivery.js'
import type { ObservedEvent } from '../../src/ingest/events.js'
import { makeTestApp } from '../helpers.js'
import { ingest, view } from '../ingest-support.js'

const T0 = Date.parse('2026-11-30T12:00:00Z')
const ctx: ApplyContext = {
  key: { tenant: 't', sessionId: 'claude:s1' },
  agent: AGENTS['claude-code'],
  parent: null,
  now: T0,
  keepAliveMs: 450_000,
  limits: DEFAULT_LIST_LIMITS,
}
/** A TodoWrite result whose list differs with `n`, so each new call is a new version. */
const write = (id: string, n: number): ObservedEvent => ({
  kind: 'tool_result',
  target: { session: 's1' },
  call_id: id,
  name: 'TodoWrite',
  is_error: false,
  structured: {
    oldTodos: [],
    newTodos: [{ content: 'A', status: n % 2 ? 'in_progress' : 'pending', activeForm: 'A' }],
  },
})
// ids of one length and prefix, as Claude's are
const id = (i: number) => `toolu_01${String(i).padStart(22, '0')}`

/**
 * One delivery at a time, as the stores hand sessions back: the same objects (the memory store)
 * or a copy parsed from the stored record (SQLite, Redis).
 */
function deliver(count: number, copy: boolean): Session {
  let session: Session | null = null
  for (let i = 0; i < count; i++) {
    const result = applyObserved(session, [write(id(i), i)], ctx)
    assert.equal(result.write, true)
    session = copy ? JSON.parse(JSON.stringify(result.session)) : result.session
  }
  return session!
}

describe('ingest/apply: applied ids, one delivery at a time', () => {
  for (const copy of [false, true]) {
    it(`Should keep the last ${MAX_APPLIED_IDS} ids in order and ignore each of them again (${copy ? 'parsed copies' : 'same objects'})`, () => {
      const session = deliver(300, copy)
      const expected = Array.from({ length: MAX_APPLIED_IDS }, (_, i) =>
        id(300 - MAX_APPLIED_IDS + i)
      )
      assert.equal(session.observed!.applied, expected.map(appliedDigestOf).join(''))
      for (const known of [expected[0], expected[100], expected.at(-1)!]) {
        const again = applyObserved(session, [write(known, 1)], ctx)
        assert.equal(again.write, false, known)
        assert.equal(again.applied, 0)
        assert.equal(again.ignored, 1)
      }
      // an id older than the kept ones is a new call again
      const forgotten = applyObserved(session, [write(id(0), 300)], ctx)
      assert.equal(forgotten.applied, 1)
      const kept = forgotten.session!.observed!.applied
      assert.equal(kept.slice(-APPLIED_DIGEST_CHARS), appliedDigestOf(id(0)))
      assert.equal(kept.length, MAX_APPLIED_IDS * APPLIED_DIGEST_CHARS)
    })
  }

  it('Should ignore a call repeated within one delivery, and calls known before it, past the first lookups', () => {
    const session = deliver(20, false)
    const events = [
      ...Array.from({ length: 12 }, (_, i) => write(id(100 + i), i + 1)),
      write(id(100), 1),
      write(id(5), 1),
      write(id(111), 1),
    ]
    const result = applyObserved(session, events, ctx)
    // ids are kept with a new version: the last list differs from the stored one
    assert.equal(result.write, true)
    assert.equal(result.applied, 12)
    assert.equal(result.ignored, 3)
    assert.equal(
      result.session!.observed!.applied.slice(-12 * APPLIED_DIGEST_CHARS),
      events
        .slice(0, 12)
        .map((e) => appliedDigestOf((e as { call_id: string }).call_id))
        .join('')
    )
    // the next delivery still finds every one of them
    for (const known of [id(0), id(19), id(100), id(111)]) {
      assert.equal(applyObserved(result.session, [write(known, 2)], ctx).applied, 0, known)
    }
  })

  it('Should still know the ids of a session stored before the digests (an array of ids), and store digests from then on', () => {
    const legacy = deliver(3, true)
    legacy.observed!.applied = [id(0), id(1), id(2)] as unknown as string
    for (const known of [id(0), id(2)]) {
      const again = applyObserved(legacy, [write(known, 7)], ctx)
      assert.equal(again.write, false, known)
      assert.equal(again.ignored, 1)
    }
    const next = applyObserved(legacy, [write(id(3), 3)], ctx)
    assert.equal(next.applied, 1)
    assert.equal(
      next.session!.observed!.applied,
      [0, 1, 2, 3].map((i) => appliedDigestOf(id(i))).join('')
    )
  })

  it('Should count a digest only where a digest starts', () => {
    const digest = appliedDigestOf(id(1))
    // the digest straddles two kept ones
    const straddling = `abc${digest}${'z'.repeat(APPLIED_DIGEST_CHARS - 3)}`
    assert.equal(new AppliedIds(straddling).has(id(1)), false)
    assert.equal(new AppliedIds(`${'z'.repeat(APPLIED_DIGEST_CHARS)}${digest}`).has(id(1)), true)
    assert.equal(new AppliedIds(undefined).has(id(1)), false)
  })
})

describe('ingest: a stream posted again', () => {
  const SID = 'f0e1d2c3-b4a5-4697-8899-aabbccddeeff'
  /** An Agent SDK stream of `count` TodoWrite calls, each with its result, one list each. */
  function stream(count: number): string[] {
    const lines: string[] = []
    for (let i = 0; i < count; i++) {
      const todos = [{ content: `Step ${i}`, status: 'in_progress', activeForm: `Doing step ${i}` }]
      const before = i === 0 ? [] : [{ ...todos[0], content: `Step ${i - 1}` }]
      const callId = `toolu_01Replay${String(i).padStart(16, '0')}`
      lines.push(
        JSON.stringify({
          type: 'assistant',
          session_id: SID,
          message: {
            content: [{ type: 'tool_use', id: callId, name: 'TodoWrite', input: { todos } }],
          },
        }),
        JSON.stringify({
          type: 'user',
          session_id: SID,
          message: { content: [{ type: 'tool_result', tool_use_id: callId, content: 'ok' }] },
          tool_use_result: { oldTodos: before, newTodos: todos },
        })
      )
    }
    return lines
  }

  it(`Should apply nothing of a stream of more than ${MAX_APPLIED_IDS} calls posted whole again, and only the new calls of a longer copy`, async () => {
    const t = makeTestApp()
    const count = MAX_APPLIED_IDS + 36
    const lines = stream(count + 10)
    const first = await ingest(t, 'claude-agent-sdk', lines.slice(0, 2 * count).join('\n'))
    assert.equal(first.status, 200)
    // a version per list, up to what one delivery may store (the oldest lists share one)
    const versions = Math.min(count, MAX_DELIVERY_UPDATES)
    assert.equal(first.body.version, versions)
    const again = await ingest(t, 'claude-agent-sdk', lines.slice(0, 2 * count).join('\n'))
    assert.deepEqual(
      { version: again.body.version, applied: again.body.applied },
      { version: versions, applied: 0 }
    )
    const session = await view(t, `claude:${SID}`)
    assert.deepEqual(
      session.items.map((item: { content: string }) => item.content),
      [`Step ${count - 1}`]
    )
    // the file grew by ten calls: those ten apply, one version each, and nothing older again
    const grown = await ingest(t, 'claude-agent-sdk', lines.join('\n'))
    assert.equal(grown.body.version, versions + 10)
    const history = await t.call('GET', `/v1/sessions/claude:${SID}/history?limit=12`)
    assert.deepEqual(
      history.body.entries.map((entry: { items: { content: string }[] }) => entry.items[0].content),
      Array.from({ length: 12 }, (_, i) => `Step ${count - 2 + i}`)
    )
  })

  it('Should apply a stream whose calls the session never saw, even after calls it knows from another stream', async () => {
    const t = makeTestApp()
    const lines = stream(6)
    await ingest(t, 'claude-agent-sdk', lines.slice(6).join('\n'))
    // the first three calls come later: none of the session's known calls follows them
    const earlier = await ingest(t, 'claude-agent-sdk', lines.slice(0, 6).join('\n'))
    assert.equal(earlier.body.applied, 6)
  })
})
