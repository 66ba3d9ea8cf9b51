/**
 * POST /v1/ingest/opencode with what the real opencode 1.18.33 and Kilo CLI 7.7.7 emitted
 * (test/fixtures/ingest/opencode/real-*, kilo/real-*; REAL-CAPTURES.md): the server's
 * `/global/event` stream, the batches examples/observe/opencode-plugin.js posted, and `opencode run
 * --format json`. The list must be what opencode's own `GET /session/{id}/todo` said at the end.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp, type TestApp } from '../helpers.js'
import { fixtureJson, fixtureText, historyRows, ingest, rows, view } from '../ingest-support.js'

const H = 'Write the /health handler'
const T = 'Add a test for /health'
const R = 'Update the README'

/** A capture's plugin batches (`{path, headers, body}`), in the order they were posted. */
const batches = (name: string): { path: string; body: any[] }[] => fixtureJson(name)

/** The capture's ground truth: the session id, the calls and their results, the final todo. */
const truth = (name: string) =>
  fixtureJson(name) as {
    session: string
    exchanges: { name: string; result?: string }[]
    todo: { content: string; status: string; priority: string }[]
  }

const sessionOf = (prefix: string, native: string) => `${prefix}:${native}`

/** Posts each batch as the plugin did; every reply must be 200. */
async function postBatches(t: TestApp, list: { body: any[] }[], query = '') {
  const replies = []
  for (const batch of list) {
    const res = await ingest(t, 'opencode', batch.body, query)
    assert.equal(res.status, 200, res.text)
    replies.push(res)
  }
  return replies
}

/** The list as `[status, content, metadata]` rows. */
const items = (session: any) =>
  session.items.map((item: any) => [item.status, item.content, item.metadata])

/** The opencode todo a service item stands for (`metadata.status` keeps an unknown word). */
const asTodo = (item: any) => ({
  content: item.content,
  status: item.metadata?.status ?? item.status,
  priority: item.metadata?.priority,
})

describe('POST /v1/ingest/opencode', () => {
  const permission = truth('opencode/real-permission.tool-results.json')
  const SESSION = sessionOf('opencode', permission.session)

  it('Should build the list from a whole /global/event capture, equal to GET /session/{id}/todo', async () => {
    const t = makeTestApp()
    const res = await ingest(t, 'opencode', fixtureText('opencode/real-permission.global.ndjson'))
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.session_id, SESSION)
    const session = await view(t, SESSION)
    assert.equal(session.source, 'opencode')
    assert.equal(session.dialect, 'opencode-todos')
    assert.deepEqual(session.items.map(asTodo), permission.todo)
    assert.deepEqual(items(session), [
      ['completed', H, { priority: 'high' }],
      ['completed', T, { priority: 'medium' }],
      ['cancelled', R, { priority: 'low' }],
    ])
    // session.idle is activity: the server keeps the session
    assert.equal(session.ended, null)
    assert.equal(session.waiting, null)
    assert.equal(session.rendered, JSON.stringify(permission.todo, null, 2))
  })

  it('Should keep one version per accepted write (the refused one sent no event), an unknown status pending with its word', async () => {
    const t = makeTestApp()
    await ingest(t, 'opencode', fixtureText('opencode/real-permission.global.ndjson'))
    // the third todowrite was refused by opencode's schema: its result says so, no event came
    const refused = permission.exchanges.filter((e) => e.name === 'todowrite')[2]
    assert.match(refused.result!, /^The todowrite tool was called with invalid arguments/)
    assert.deepEqual(await historyRows(t, SESSION), [
      [
        1,
        'ingest',
        [
          ['1', 'in_progress', H],
          ['2', 'pending', T],
          ['3', 'pending', R],
        ],
      ],
      [
        2,
        'ingest',
        [
          ['1', 'completed', H],
          ['2', 'pending', T],
          ['3', 'pending', R],
        ],
      ],
      [
        3,
        'ingest',
        [
          ['1', 'completed', H],
          ['2', 'completed', T],
          ['3', 'cancelled', R],
        ],
      ],
    ])
    const history = await t.call('GET', `/v1/sessions/${SESSION}/history`)
    const second = history.body.entries.find((entry: any) => entry.version === 2)
    // `doing` / `urgent` as opencode stored them: pending, the word kept
    assert.deepEqual(second.items[1].metadata, { priority: 'urgent', status: 'doing' })
  })

  it('Should show waiting from permission.asked until permission.replied, busy status between included', async () => {
    const t = makeTestApp()
    const list = batches('opencode/real-permission.plugin.json')
    const asked = list.findIndex((b) => b.body.some((e) => e.type === 'permission.asked'))
    await postBatches(t, list.slice(0, asked + 1))
    const waiting = await view(t, SESSION)
    assert.equal(waiting.state, 'waiting')
    assert.equal(waiting.waiting.reason, 'permission_prompt')
    assert.match(waiting.waiting.message, /^edit .*health\.txt$/)
    // opencode's status stays busy while it asks, and other events of the session go on
    const busy = {
      id: 'evt_236108fb0001aaaaaaaaaaaaaa',
      type: 'session.status',
      properties: { sessionID: permission.session, status: { type: 'busy' } },
    }
    const still = await ingest(t, 'opencode', [busy])
    assert.equal(still.body.version, waiting.version)
    assert.equal((await view(t, SESSION)).waiting.reason, 'permission_prompt')
    await postBatches(t, list.slice(asked + 1))
    const after = await view(t, SESSION)
    assert.equal(after.waiting, null)
    assert.deepEqual(after.items.map(asTodo), permission.todo)
  })

  it('Should clear the wait on a rejected permission, and go on with the list', async () => {
    const t = makeTestApp()
    const reject = truth('opencode/real-reject.tool-results.json')
    const session = sessionOf('opencode', reject.session)
    const write = reject.exchanges.find((e) => e.name === 'write')!
    assert.match(write.result!, /^The user rejected permission to use this specific tool call/)
    const list = batches('opencode/real-reject.plugin.json')
    const asked = list.findIndex((b) => b.body.some((e) => e.type === 'permission.asked'))
    await postBatches(t, list.slice(0, asked + 1))
    assert.equal((await view(t, session)).waiting.reason, 'permission_prompt')
    await postBatches(t, list.slice(asked + 1))
    const after = await view(t, session)
    assert.equal(after.waiting, null)
    assert.deepEqual(after.items.map(asTodo), reject.todo)
  })

  it('Should show waiting for a question until it is answered', async () => {
    const t = makeTestApp()
    const question = truth('opencode/real-question.tool-results.json')
    const session = sessionOf('opencode', question.session)
    const list = batches('opencode/real-question.plugin.json')
    const asked = list.findIndex((b) => b.body.some((e) => e.type === 'question.asked'))
    await postBatches(t, list.slice(0, asked + 1))
    const waiting = await view(t, session)
    assert.deepEqual([waiting.waiting.reason, waiting.waiting.message], ['question', 'Which port?'])
    await postBatches(t, list.slice(asked + 1))
    const after = await view(t, session)
    assert.equal(after.waiting, null)
    assert.deepEqual(after.items.map(asTodo), question.todo)
  })

  it('Should apply duplicates, replays and an identical snapshot once, without a new version', async () => {
    const t = makeTestApp()
    const list = batches('opencode/real-permission.plugin.json')
    await postBatches(t, list)
    const before = await view(t, SESSION)
    // every batch again, then the server's whole stream (the same events, by id)
    const again = await postBatches(t, list)
    assert.equal(
      again.reduce((sum, res) => sum + res.body.applied, 0),
      0
    )
    const replay = await ingest(
      t,
      'opencode',
      fixtureText('opencode/real-permission.global.ndjson')
    )
    assert.equal(replay.body.applied, 0)
    assert.equal(replay.body.version, before.version)
    // the same list under a new event id: no change, no version
    const same = {
      id: 'evt_2361f0000001bbbbbbbbbbbbbb',
      type: 'todo.updated',
      properties: { sessionID: permission.session, todos: permission.todo },
    }
    const res = await ingest(t, 'opencode', same)
    assert.equal(res.body.version, before.version)
    // the server's stream said one thing more, the model (the plugin forwards no message.*
    // events): the origin fills it, nothing else changed
    const after = await view(t, SESSION)
    assert.deepEqual(after.origin, { ...before.origin, model: 'fake/fake-model' })
    assert.deepEqual({ ...after, origin: before.origin }, before)
  })

  it('Should keep the newest snapshot when deliveries come out of order', async () => {
    const t = makeTestApp()
    const list = batches('opencode/real-permission.plugin.json')
    // the batches in reverse: older snapshots arrive after the newest one
    await postBatches(t, [...list].reverse())
    const session = await view(t, SESSION)
    assert.deepEqual(session.items.map(asTodo), permission.todo)
    // one list, however many versions the waits took: the older ones were not applied over it
    const lists = new Set(
      (await historyRows(t, SESSION))
        .filter((row: any) => row[2].length > 0)
        .map((row: any) => JSON.stringify(row[2]))
    )
    assert.deepEqual([...lists], [JSON.stringify(rows(session.items))])
  })

  it('Should take Kilo with ?agent=kilo as its own source and session prefix', async () => {
    const t = makeTestApp()
    const kilo = truth('kilo/real-permission.tool-results.json')
    const list = batches('kilo/real-permission.plugin.json')
    // the plugin knew it ran in Kilo
    assert.equal(list[0].path, '/v1/ingest/opencode?agent=kilo')
    await postBatches(t, list, '?agent=kilo')
    const session = await view(t, sessionOf('kilo', kilo.session))
    assert.equal(session.source, 'kilo')
    assert.equal(session.dialect, 'opencode-todos')
    assert.deepEqual(session.items.map(asTodo), kilo.todo)
    assert.equal(session.waiting, null)
    const listing = await t.call('GET', '/v1/sessions?source=kilo')
    assert.deepEqual(
      listing.body.sessions.map((s: any) => s.session_id),
      [sessionOf('kilo', kilo.session)]
    )
  })

  it('Should build the list from opencode run --format json, skipping the refused write', async () => {
    const t = makeTestApp()
    const run = fixtureText('opencode/real-run.ndjson')
    const native = JSON.parse(run.split('\n')[0]).sessionID as string
    const res = await ingest(t, 'opencode', run)
    assert.equal(res.status, 200, res.text)
    const session = await view(t, sessionOf('opencode', native))
    assert.deepEqual(items(session), [
      ['completed', H, { priority: 'high' }],
      ['completed', T, { priority: 'medium' }],
      ['cancelled', R, { priority: 'low' }],
    ])
    assert.equal((await historyRows(t, sessionOf('opencode', native))).length, 3)
  })

  it('Should end the session on session.error and open it again when the list changes', async () => {
    const t = makeTestApp()
    const sessionID = 'ses_0000000000001AbCdEfGhIjK'
    const event = (id: string, type: string, properties: object) => ({
      id,
      type,
      properties: { sessionID, ...properties },
    })
    await ingest(t, 'opencode', [
      event('evt_236100000001aaaaaaaaaaaaaa', 'todo.updated', {
        todos: [{ content: 'Fix it', status: 'in_progress', priority: 'high' }],
      }),
      event('evt_236100000002aaaaaaaaaaaaaa', 'session.error', {
        error: { name: 'APIError', data: { message: 'Bad gateway' } },
      }),
    ])
    const id = sessionOf('opencode', sessionID)
    const ended = await view(t, id)
    assert.equal(ended.ended.outcome, 'error')
    assert.equal(ended.ended.detail, 'Bad gateway')
    await ingest(t, 'opencode', [
      event('evt_236100000003aaaaaaaaaaaaaa', 'todo.updated', {
        todos: [{ content: 'Fix it', status: 'completed', priority: 'high' }],
      }),
    ])
    assert.equal((await view(t, id)).ended, null)
  })

  it('Should take the origin from /global/event: its directory, the server’s version and the model', async () => {
    const t = makeTestApp()
    await ingest(t, 'opencode', fixtureText('opencode/real-permission.global.ndjson'))
    const session = await view(t, SESSION)
    assert.equal(session.origin.cwd, '/home/user/project')
    assert.equal(session.origin.agent_version, '1.18.33')
    assert.equal(session.origin.model, 'fake/fake-model')
    assert.equal(session.origin.agent, 'opencode')
    // Kilo's server, the same way
    const kilo = truth('kilo/real-permission.tool-results.json')
    await ingest(t, 'opencode', fixtureText('kilo/real-permission.global.ndjson'), '?agent=kilo')
    const k = await view(t, sessionOf('kilo', kilo.session))
    assert.equal(k.origin.cwd, '/home/user/project')
    assert.equal(k.origin.agent_version, '7.7.7')
    assert.equal(k.origin.agent, 'kilo')
  })

  it('Should take the plugin’s batches’ origin from their headers and session.created’s directory', async () => {
    const t = makeTestApp()
    for (const batch of batches('opencode/real-permission.plugin.json') as any[]) {
      const res = await ingest(t, 'opencode', batch.body, '', batch.headers)
      assert.equal(res.status, 200, res.text)
    }
    const session = await view(t, SESSION)
    assert.equal(session.origin.user, 'unknown')
    assert.equal(session.origin.host, 'vm')
    assert.equal(session.origin.cwd, '/home/user/project')
    assert.equal(session.origin.agent_version, '1.18.33')
  })

  it('Should refuse a body that is not opencode’s, and an unknown ?agent=, changing nothing', async () => {
    const t = makeTestApp()
    const wrong = await ingest(t, 'opencode', { hook_event_name: 'PostToolUse', session_id: 'x' })
    assert.equal(wrong.status, 400)
    assert.equal(wrong.body.type, 'https://agent-todos.dev/problems/invalid-ingest-body')
    const noProperties = await ingest(t, 'opencode', { type: 'todo.updated', id: 'evt_1' })
    assert.equal(noProperties.status, 400)
    const agent = await ingest(
      t,
      'opencode',
      fixtureText('opencode/real-run.ndjson'),
      '?agent=claude'
    )
    assert.equal(agent.status, 400)
    const listing = await t.call('GET', '/v1/sessions')
    assert.deepEqual(listing.body.sessions, [])
  })
})
