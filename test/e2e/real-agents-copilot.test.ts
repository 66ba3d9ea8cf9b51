/**
 * End to end with the real GitHub Copilot CLI (1.0.102, pinned in test/agents/package.json),
 * offline in BYOK mode against the chat-completions stand-in: it posts its own hooks
 * (examples/observe/copilot/agent-todos.json, pointed at the service this test starts, with
 * `COPILOT_HOOK_ALLOW_LOCALHOST=1`), and the session the service built must equal what the
 * agent's own `sql` tool said: the rows its last read-back returned, the statuses, the ids the
 * model chose, the dependencies, and how the run ended. Its `--output-format json` stream, posted
 * after the run, must build the same list.
 *
 * Under CI a CLI that is not installed is a failure, never a skip.
 */
import { after, before, describe, it, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import {
  startChatCompletionsApi as startChatCompletions,
  type ChatCompletionsApi,
} from '../agents/chat-completions.js'
import { COPILOT_SCRIPTS, COPILOT_TODOS, copilotPath, runCopilot } from '../agents/copilot.js'
import { request, startServer, type ServerProcess } from './server-process.js'

const KEY = 'real-agents-copilot-key-01'
const AUTH = { authorization: `Bearer ${KEY}` }
const STREAMED = 'copilot:e2e-stream'
const CI = process.env.CI === 'true' || process.env.CI === '1'

function requireCli(t: TestContext): boolean {
  if (copilotPath()) return true
  if (CI) assert.fail('copilot is not installed: node scripts/ensure-test-agents.mjs installs it')
  t.skip('copilot is not installed (node scripts/ensure-test-agents.mjs)')
  return false
}

/** The rows of a markdown table in the sql tool's read-back text, under its `N. SELECT` head. */
function readBackTables(text: string): string[][][] {
  const tables: string[][][] = []
  let current: string[][] | null = null
  for (const line of text.split('\n')) {
    const trimmed = line.trim()
    if (!trimmed.startsWith('|')) {
      if (current) tables.push(current)
      current = null
      continue
    }
    const cells = trimmed
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim())
    if (cells.every((cell) => /^-+$/.test(cell))) continue
    ;(current ??= []).push(cells)
  }
  if (current) tables.push(current)
  return tables
}

/** Polls the session until `ready` holds (a hook may land after the CLI exits). */
async function sessionWhen(
  server: ServerProcess,
  session: string,
  ready: (view: any) => boolean,
  timeoutMs = 10_000
): Promise<any> {
  const deadline = Date.now() + timeoutMs
  let last: { status: number; body: any } = { status: 0, body: null }
  while (Date.now() < deadline) {
    last = await request(server.url, 'GET', `/v1/sessions/${session}`, undefined, AUTH)
    if (last.status === 200 && ready(last.body)) return last.body
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.fail(`session ${session} never got there: ${last.status} ${JSON.stringify(last.body)}`)
}

const STATUS: Record<string, string> = {
  pending: 'pending',
  in_progress: 'in_progress',
  done: 'completed',
  blocked: 'blocked',
}

describe('GitHub Copilot CLI, real, offline', () => {
  let server: ServerProcess
  let api: ChatCompletionsApi
  before(async () => {
    server = await startServer({ AUTH_KEYS: `real-agents:agent:${KEY}`, STORE: 'memory' })
    api = await startChatCompletions(COPILOT_SCRIPTS)
  })
  after(async () => {
    await api?.close()
    await server?.stop()
  })

  it(
    'Should build from its own hooks the list its sql tool read back, and end with sessionEnd',
    { timeout: 150_000 },
    async (t) => {
      if (!requireCli(t)) return
      const run = await runCopilot({
        script: COPILOT_TODOS,
        api,
        service: { url: server.url, key: KEY },
      })
      try {
        assert.equal(run.timedOut, false, run.stderr)
        assert.equal(run.code, 0, run.stderr)
        const result = run.stdout
          .split('\n')
          .filter((line) => line.trim())
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((line) => line.type === 'result')
        assert.ok(result, run.stdout.slice(-2000))
        const session = `copilot:${result.sessionId as string}`

        // the truth: what the agent's own sql tool answered to its read-back
        const exchanges = api.exchanges(COPILOT_TODOS.name)
        const readBack = exchanges.find((e) => e.input.description === 'Read back')
        assert.ok(readBack?.result, 'the read-back came back')
        const [todoRows, depRows] = readBackTables(readBack.result)
        const expected = todoRows.slice(1).map(([id, title, description, status]) => ({
          id,
          content: title,
          status: STATUS[status],
          description: description === '' || description === 'NULL' ? undefined : description,
          blocked_by: depRows
            .slice(1)
            .filter(([todo]) => todo === id)
            .map(([, dependsOn]) => dependsOn),
        }))
        assert.equal(expected.length, 3)
        // the statement SQLite refused came back as an error to the model
        const refused = exchanges.find((e) => e.input.description === 'A refused statement')
        assert.match(refused?.result ?? '', /no such column: priority/)

        const view = await sessionWhen(server, session, (body) => Boolean(body.ended))
        assert.equal(view.source, 'copilot')
        assert.equal(view.dialect, 'copilot-todos')
        assert.deepEqual(
          view.items.map((item: any) => ({
            id: item.id,
            content: item.content,
            status: item.status,
            description: item.description,
            blocked_by: item.blocked_by,
          })),
          expected
        )
        assert.equal(view.ended.outcome, 'cancelled')
        assert.equal(view.ended.detail, 'complete')

        // its JSON stream, posted whole after the run, builds the same list in a session of its own
        const res = await request(
          server.url,
          'POST',
          `/v1/ingest/copilot?session_id=${encodeURIComponent(STREAMED)}`,
          run.stdout,
          { ...AUTH, 'content-type': 'application/x-ndjson' }
        )
        assert.equal(res.status, 200, JSON.stringify(res.body))
        const streamed = await request(
          server.url,
          'GET',
          `/v1/sessions/${encodeURIComponent(STREAMED)}`,
          undefined,
          AUTH
        )
        assert.deepEqual(
          streamed.body.items.map((item: any) => [item.id, item.status, item.blocked_by]),
          expected.map((item) => [item.id, item.status, item.blocked_by])
        )
        assert.equal(streamed.body.ended.outcome, 'completed')
      } finally {
        await run.cleanup()
      }
    }
  )
})
