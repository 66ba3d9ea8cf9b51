/**
 * The real OpenTelemetry exports of Claude Code 2.1.332, Codex 0.171.0 and Gemini CLI 0.61.0
 * (test/fixtures/otel/) rebuild the lists their hooks give for the same scenario
 * (test/fixtures/ingest/), as OTLP/JSON and as protobuf alike, and a replay changes nothing.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeTestApp, type TestApp } from '../helpers.js'
import { fixtureJson, postHooks, view } from '../ingest-support.js'
import { replay } from '../otlp-support.js'

const CODEX = 'codex-0.171.0'
const GEMINI = 'gemini-cli-0.61.0'
const CLAUDE = 'claude-code-2.1.332'

/** The sessions of the app, by id. */
async function sessions(t: TestApp): Promise<Map<string, any>> {
  const res = await t.call('GET', '/v1/sessions')
  assert.equal(res.status, 200)
  const found = new Map<string, any>()
  for (const summary of res.body.sessions)
    found.set(summary.session_id, await view(t, summary.session_id))
  return found
}

/** The one session an export made. */
async function onlySession(t: TestApp) {
  const all = await sessions(t)
  assert.equal(all.size, 1, [...all.keys()].join(', '))
  return [...all.values()][0]
}

const list = (session: any) => session.items.map((item: any) => [item.status, item.content])

/** The final list the hooks of a fixture give. */
async function hooksList(source: string, fixture: string, prefix: string) {
  const t = makeTestApp()
  const hooks = fixtureJson(fixture)
  await postHooks(t, source, hooks)
  return list(await view(t, `${prefix}:${hooks[0].session_id}`))
}

for (const encoding of ['json', 'protobuf'] as const) {
  describe(`OTLP captures as ${encoding}`, () => {
    it('Codex update_plan logs rebuild the plan with every status, as its hooks do', async () => {
      for (const name of ['update-plan', 'update-plan-binary', 'update-plan-managed-config']) {
        const t = makeTestApp()
        const replies = await replay(t, `${CODEX}/${name}`, { encoding })
        assert.ok(
          replies.every((reply) => reply.partialSuccess == null),
          name
        )
        const session = await onlySession(t)
        assert.match(session.session_id, /^codex:01a2/)
        assert.equal(session.source, 'otlp')
        assert.equal(session.dialect, 'codex-plan')
        assert.deepEqual(list(session), await hooksList('codex', 'codex/real-plan.json', 'codex'))
        assert.equal(session.origin.agent, 'codex')
        assert.equal(session.origin.agent_version, '0.171.0')
        assert.equal(session.origin.host, 'host')
        assert.equal(session.origin.model, 'gpt-5.5')
        assert.equal(session.items_known, true)
      }
    })

    it('A failed Codex update_plan (invalid-plan) changes nothing', async () => {
      const t = makeTestApp()
      await replay(t, `${CODEX}/invalid-plan`, { encoding })
      const session = await onlySession(t)
      // calls 0 and 2 failed (status `doing`, no `plan`): only 1 and 3 are versions of the list
      assert.deepEqual(list(session), [['in_progress', 'Write the handler']])
      const history = await t.call('GET', `/v1/sessions/${session.session_id}/history`)
      assert.deepEqual(
        history.body.entries.filter((entry: any) => entry.items.length > 0).map(list),
        [
          [
            ['in_progress', 'Write the handler'],
            ['in_progress', 'Test it'],
          ],
          [['in_progress', 'Write the handler']],
        ]
      )
    })

    it('Gemini write_todos logs rebuild the list, as its hooks do', async () => {
      for (const name of ['write-todos', 'write-todos-system-settings']) {
        const t = makeTestApp()
        await replay(t, `${GEMINI}/${name}`, { encoding })
        const session = await onlySession(t)
        assert.match(session.session_id, /^gemini:/)
        assert.equal(session.dialect, 'gemini-todos')
        assert.deepEqual(
          list(session),
          await hooksList('gemini-cli', 'gemini-cli/real-todos.json', 'gemini')
        )
        assert.equal(session.origin.agent, 'gemini-cli')
        assert.equal(session.origin.model, 'gemini-2.5-pro')
      }
    })

    it('Gemini without logPrompts has no list: its write_todos records are rejected, counted', async () => {
      const t = makeTestApp()
      const replies = await replay(t, `${GEMINI}/write-todos-no-log-prompts`, { encoding })
      const partial = replies.map((reply) => reply.partialSuccess).filter(Boolean) as any[]
      assert.equal(partial.length, 1)
      assert.equal(Number(partial[0].rejectedLogRecords), 4)
      assert.match(partial[0].errorMessage, /logPrompts/)
      assert.deepEqual((await onlySession(t)).items, [])
    })

    // these captures' script (two creates, task 1 started and completed, a TaskList) is not the
    // hook fixture's: the list is the one its calls make
    it('Claude Task* logs rebuild the tasks, numbered in order of creation', async () => {
      for (const name of ['tasks', 'tasks-managed-settings', 'tasks-beta']) {
        const t = makeTestApp()
        await replay(t, `${CLAUDE}/${name}`, { encoding })
        const session = await onlySession(t)
        assert.equal(session.dialect, 'claude-tasks', name)
        assert.deepEqual(
          session.items.map((item: any) => item.id),
          ['1', '2'],
          name
        )
        assert.deepEqual(
          list(session),
          [
            ['completed', 'Write the /health handler'],
            ['pending', 'Add a test for /health'],
          ],
          name
        )
        assert.equal(session.origin.agent, 'claude-code')
        assert.equal(session.origin.agent_version, '2.1.332')
      }
    })

    it('Claude TodoWrite logs give the item count only: items_known false', async () => {
      const t = makeTestApp()
      await replay(t, `${CLAUDE}/todowrite`, { encoding })
      const session = await onlySession(t)
      assert.equal(session.dialect, 'claude-todowrite')
      assert.equal(session.items_known, false)
      assert.equal(session.items.length, 3)
      const listing = await t.call('GET', '/v1/sessions')
      assert.equal(listing.body.sessions[0].items_known, false)
    })

    it('Claude TodoWrite through the beta tracer: the whole list, as the hooks give it', async () => {
      const t = makeTestApp()
      await replay(t, `${CLAUDE}/todowrite-beta`, { encoding })
      const session = await onlySession(t)
      assert.equal(session.items_known, true)
      assert.deepEqual(
        list(session),
        await hooksList('claude-code', 'claude-code/real-todowrite.json', 'claude')
      )
    })

    it("A Claude subagent's TodoWrite (beta) is its own list below the main session", async () => {
      const t = makeTestApp()
      await replay(t, `${CLAUDE}/subagent-todowrite-beta`, { encoding })
      const all = await sessions(t)
      const main = [...all.values()].find((s) => s.parent === null)
      const sub = [...all.values()].find((s) => s.parent !== null)
      assert.deepEqual(list(main), [['completed', 'Delegate the research']])
      assert.deepEqual(list(sub), [['pending', 'Sub: follow-up']])
      assert.equal(sub.parent, main.session_id)
      assert.deepEqual(main.observed.subagents, [sub.session_id])
    })

    it('Every capture posted twice ends at the same version', async () => {
      for (const name of [
        `${CODEX}/update-plan-binary`,
        `${CODEX}/invalid-plan`,
        `${GEMINI}/write-todos`,
        `${CLAUDE}/tasks`,
        `${CLAUDE}/todowrite`,
        `${CLAUDE}/todowrite-beta`,
        `${CLAUDE}/subagent-todowrite-beta`,
        `${CLAUDE}/permission-interactive`,
      ]) {
        const t = makeTestApp()
        await replay(t, name, { encoding })
        const before = await sessions(t)
        await replay(t, name, { encoding })
        const after = await sessions(t)
        for (const [id, session] of before) {
          assert.equal(after.get(id).version, session.version, `${name} ${id}`)
          assert.deepEqual(after.get(id).items, session.items, `${name} ${id}`)
        }
      }
    })
  })
}
