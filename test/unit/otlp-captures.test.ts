/**
 * The real OpenTelemetry exports of Claude Code 2.1.332, Codex 0.171.0 and Gemini CLI 0.61.0
 * (test/fixtures/otel/) rebuild the lists their hooks give for the same scenario
 * (test/fixtures/ingest/), as OTLP/JSON and as protobuf alike, and a replay changes nothing.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeTestApp, type TestApp } from '../helpers.js'
import { fixtureJson, postHooks, view } from '../ingest-support.js'
import { capture, postOtlp, replay, type PostOptions } from '../otlp-support.js'

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

/** The tracker capture's list: two tasks created, the first started then closed, a listing. */
const TRACKER_LIST = [
  ['02498b', 'completed', 'Write the /health handler', 'GET /health returns ok'],
  ['564e1f', 'pending', 'Add a test for /health', 'one test'],
]
const trackerList = (session: any) =>
  session.items.map((item: any) => [item.id, item.status, item.content, item.description])

/**
 * Posts the tracker capture with its `tool_call` spans changed (or left out: `undefined`).
 * @param t - the app
 * @param change - each span's attributes by key, its tool's name: what to post instead
 * @param options - how to post
 */
async function postTracker(
  t: TestApp,
  change: (attrs: Map<string, any>, tool: string) => Map<string, any> | undefined,
  options: PostOptions
) {
  for (const request of capture(`${GEMINI}/tracker`)) {
    const body = structuredClone(request.body) as any
    for (const resource of body.resourceSpans ?? []) {
      for (const scope of resource.scopeSpans) {
        scope.spans = scope.spans.flatMap((span: any) => {
          const attrs = new Map<string, any>(span.attributes.map((a: any) => [a.key, a.value]))
          const tool = attrs.get('gen_ai.tool.name')?.stringValue
          if (span.name !== 'tool_call' || !tool) return [span]
          const changed = change(attrs, tool)
          if (!changed) return []
          return [{ ...span, attributes: [...changed].map(([key, value]) => ({ key, value })) }]
        })
      }
    }
    const res = await postOtlp(t, request.signal, body, options)
    assert.equal(res.status, 200)
  }
}

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

    it("Gemini's tracker spans rebuild its tasks, with the tracker's ids", async () => {
      const t = makeTestApp()
      const replies = await replay(t, `${GEMINI}/tracker`, { encoding })
      assert.ok(replies.every((reply) => reply.partialSuccess == null))
      const session = await onlySession(t)
      assert.equal(session.session_id, 'gemini:985c9124-14f4-41c9-a578-aa14fc91f6b6')
      assert.equal(session.source, 'otlp')
      assert.equal(session.dialect, 'gemini-tracker')
      assert.deepEqual(trackerList(session), TRACKER_LIST)
      assert.deepEqual(session.items[0].metadata, { type: 'task' })
      assert.equal(session.origin.agent, 'gemini-cli')
      // five calls, each a version; the listing agrees with the list, so it adds none
      const history = await t.call('GET', `/v1/sessions/${session.session_id}/history`)
      assert.deepEqual(
        history.body.entries.filter((entry: any) => entry.items.length > 0).map(list),
        [
          [['pending', 'Write the /health handler']],
          [
            ['pending', 'Write the /health handler'],
            ['pending', 'Add a test for /health'],
          ],
          [
            ['in_progress', 'Write the /health handler'],
            ['pending', 'Add a test for /health'],
          ],
          [
            ['completed', 'Write the /health handler'],
            ['pending', 'Add a test for /health'],
          ],
        ]
      )
    })

    it('A failed tracker call changes nothing; without the spans there are no tasks', async () => {
      const failed = makeTestApp()
      // the close refused (its span's status `error`), and no listing after it
      await postTracker(
        failed,
        (attrs, tool) => {
          const args = JSON.parse(attrs.get('gen_ai.input.messages').stringValue).args
          if (tool === 'tracker_list_tasks') return undefined
          if (args.status !== 'closed') return attrs
          const output = JSON.parse(attrs.get('gen_ai.output.messages').stringValue)
          output.status = 'error'
          output.response.responseParts[0].functionResponse.response.output =
            'Cannot close task 02498b because dependency 564e1f is still open.'
          return new Map([
            ...attrs,
            ['gen_ai.output.messages', { stringValue: JSON.stringify(output) }],
          ])
        },
        { encoding }
      )
      const without = makeTestApp()
      await postTracker(
        without,
        (attrs, tool) =>
          tool === 'tracker_list_tasks' ||
          JSON.parse(attrs.get('gen_ai.input.messages').stringValue).args.status === 'closed'
            ? undefined
            : attrs,
        { encoding }
      )
      const session = await onlySession(failed)
      const expected = await onlySession(without)
      assert.deepEqual(trackerList(session), [
        ['02498b', 'in_progress', 'Write the /health handler', 'GET /health returns ok'],
        ['564e1f', 'pending', 'Add a test for /health', 'one test'],
      ])
      assert.equal(session.version, expected.version)
      // logs alone (no spans: `traces` off) carry no ids: the session has no tasks
      const logsOnly = makeTestApp()
      await postTracker(logsOnly, () => undefined, { encoding })
      assert.deepEqual((await onlySession(logsOnly)).items, [])
    })

    it('A tracker span cut at 10,000 characters still gives its output', async () => {
      const t = makeTestApp()
      await postTracker(
        t,
        (attrs) => {
          const raw: string = attrs.get('gen_ai.output.messages').stringValue
          // Gemini cuts the message inside `resultDisplay`, after the output: no longer JSON
          const cut = raw.slice(0, raw.indexOf('"resultDisplay"') + 30)
          return new Map([...attrs, ['gen_ai.output.messages', { stringValue: cut }]])
        },
        { encoding }
      )
      assert.deepEqual(trackerList(await onlySession(t)), TRACKER_LIST)
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

    it("terminal.type is the session's label `terminal`, filled once, filtered on", async () => {
      const t = makeTestApp()
      await replay(t, `${CODEX}/update-plan`, { encoding })
      await replay(t, `${CLAUDE}/permission-interactive`, { encoding })
      const all = [...(await sessions(t)).values()]
      const codex = all.find((session) => session.origin.agent === 'codex')
      const claude = all.find((session) => session.origin.agent === 'claude-code')
      assert.deepEqual(codex.labels, { terminal: 'dumb' })
      assert.deepEqual(claude.labels, { terminal: 'tmux' })
      // `label.<name>` filters are open-ended query names the document does not list: t.call
      const listing = await t.call('GET', '/v1/sessions?label.terminal=tmux')
      assert.deepEqual(
        listing.body.sessions.map((summary: any) => [summary.session_id, summary.labels]),
        [[claude.session_id, { terminal: 'tmux' }]]
      )
      // a later record naming another terminal changes nothing (fill once, no flapping)
      const version = codex.version
      const moved = capture(`${CODEX}/update-plan`).map((request) =>
        JSON.parse(
          JSON.stringify(request.body).replaceAll('"stringValue":"dumb"', '"stringValue":"vscode"')
        )
      )
      for (const [i, body] of moved.entries()) {
        await postOtlp(t, capture(`${CODEX}/update-plan`)[i].signal, body, { encoding })
      }
      const after = await view(t, codex.session_id)
      assert.deepEqual(after.labels, { terminal: 'dumb' })
      assert.equal(after.version, version)
    })

    it('Every capture posted twice ends at the same version', async () => {
      for (const name of [
        `${CODEX}/update-plan-binary`,
        `${CODEX}/invalid-plan`,
        `${GEMINI}/write-todos`,
        `${GEMINI}/tracker`,
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
