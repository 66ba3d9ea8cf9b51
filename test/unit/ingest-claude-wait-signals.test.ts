/**
 * Claude Code's wait signals beyond idle_prompt / permission_prompt (SPEC "Decisions", last
 * bullet), each on the captured payloads (test/fixtures/ingest/REAL-CAPTURES.md): `Interrupt`
 * ends the turn and leaves the session waiting for its person, and a `Stop` with
 * `background_tasks` is not the end of the work.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { alertTransitions } from '../../src/core/transitions.js'
import { makeTestApp } from '../helpers.js'
import { fixtureJson, ingest, postHooks, view } from '../ingest-support.js'

const hooks = fixtureJson('claude-code/todowrite.hooks.json')
const sessionId = hooks[0].session_id
const id = `claude:${sessionId}`
/** The hooks up to the TodoWrite that completes every item. */
const doneList = hooks.slice(0, 9)
const stops = fixtureJson('claude-code/real-2.1.337-stop-background.json').map(
  (hook: Record<string, unknown>) => ({ ...hook, session_id: sessionId })
)
const interrupt = (name: string) => ({
  ...fixtureJson(`claude-code/${name}`)[0],
  session_id: sessionId,
})

describe('Claude Code: Interrupt', () => {
  for (const [name, message] of [
    ['real-2.1.337-interrupt-esc.json', 'Interrupted: permission denied at the terminal'],
    ['real-2.1.337-interrupt-hook-deny.json', 'Interrupted: permission denied'],
    ['real-2.1.337-interrupt-sdk.json', 'Interrupted (stop, via client)'],
  ]) {
    it(`Should leave the session waiting for its person (interrupted) on ${name}`, async () => {
      const t = makeTestApp()
      await postHooks(t, 'claude-code', hooks.slice(0, 4))
      const before = await view(t, id)
      const res = await ingest(t, 'claude-code', interrupt(name))
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, {})
      const after = await view(t, id)
      assert.equal(after.state, 'waiting')
      assert.equal(after.waiting.reason, 'interrupted')
      assert.equal(after.waiting.message, message)
      assert.equal(after.version, before.version + 1)
    })
  }
})

describe('Claude Code: Stop with background_tasks', () => {
  it('Should keep a finished list active with background: n until a Stop without them', async () => {
    const t = makeTestApp()
    await postHooks(t, 'claude-code', doneList.slice(0, 8))
    await ingest(t, 'claude-code', stops[0])
    const running = await view(t, id)
    assert.equal(running.background, 1)
    await ingest(t, 'claude-code', doneList[8])
    const finishedList = await view(t, id)
    assert.equal(finishedList.progress.percent, 100)
    assert.equal(finishedList.state, 'active')
    assert.equal(finishedList.background, 1)
    const listed = (await t.call('GET', '/v1/sessions?state=done')).body.sessions
    assert.deepEqual(listed, [])
    const summary = (await t.call('GET', '/v1/sessions?state=active')).body.sessions[0]
    assert.equal(summary.background, 1)
    await ingest(t, 'claude-code', stops[1])
    const done = await view(t, id)
    assert.equal(done.state, 'done')
    assert.equal(done.background, 0)
    assert.equal(done.version, finishedList.version + 1)
  })

  it('Should send no session.done while background work runs, and one when it ends', async () => {
    const t = makeTestApp()
    await postHooks(t, 'claude-code', doneList.slice(0, 8))
    await ingest(t, 'claude-code', stops[0])
    const key = { tenant: 'default', sessionId: id }
    const store = t.store
    const before = await store.get(key)
    await ingest(t, 'claude-code', doneList[8])
    const listDone = await store.get(key)
    const kinds = (a: any, b: any) => alertTransitions(a, b, 60_000).map((x) => x.kind)
    assert.deepEqual(kinds(before, listDone), [])
    await ingest(t, 'claude-code', stops[1])
    assert.deepEqual(kinds(listDone, await store.get(key)), ['done'])
  })
})
