/**
 * Fixtures of observed agents (test/fixtures/ingest/<source>/) and helpers that replay them
 * through the ingest routes.
 */
import { readFileSync } from 'node:fs'
import type { TestApp, TestResponse } from './helpers.js'

const FIXTURES = new URL('./fixtures/ingest/', import.meta.url)

/** A fixture's text. */
export const fixtureText = (path: string) => readFileSync(new URL(path, FIXTURES), 'utf8')

/** A JSON fixture (hook inputs are a JSON array of them, in arrival order). */
export const fixtureJson = (path: string): any => JSON.parse(fixtureText(path))

/** The lines of an NDJSON / JSONL fixture, as text. */
export const fixtureLines = (path: string) =>
  fixtureText(path)
    .split('\n')
    .filter((line) => line.trim() !== '')

/**
 * Posts a body to an ingest route.
 * @param t - the app
 * @param source - the route's agent (`claude-code`, `codex`, …, or `openhands/events/<id>`)
 * @param body - a JSON value, or NDJSON text
 * @param query - `?session_id=…` and such
 */
export function ingest(
  t: TestApp,
  source: string,
  body: unknown,
  query = '',
  headers: Record<string, string> = {}
): Promise<TestResponse> {
  const ndjson = typeof body === 'string'
  return t.call('POST', `/v1/ingest/${source}${query}`, body, {
    'Content-Type': ndjson ? 'application/x-ndjson' : 'application/json',
    ...headers,
  })
}

/** Posts each hook input as its own request, in order, as an agent does; every reply must be 200. */
export async function postHooks(t: TestApp, source: string, hooks: unknown[], query = '') {
  const replies: TestResponse[] = []
  for (const hook of hooks) {
    const res = await ingest(t, source, hook, query)
    if (res.status !== 200) throw new Error(`hook answered ${res.status}: ${res.text}`)
    replies.push(res)
  }
  return replies
}

/** A session's view. */
export async function view(t: TestApp, sessionId: string) {
  const res = await t.call('GET', `/v1/sessions/${sessionId}`)
  if (res.status !== 200) throw new Error(`GET ${sessionId} answered ${res.status}: ${res.text}`)
  return res.body
}

/** The list as `[id, status, content]` rows. */
export const rows = (items: { id: string; status: string; content: string }[]) =>
  items.map((item) => [item.id, item.status, item.content])

/** A session's history as `[version, source, [id, status, content][]]`. */
export async function historyRows(t: TestApp, sessionId: string) {
  const res = await t.call('GET', `/v1/sessions/${sessionId}/history`)
  return res.body.entries.map((entry: any) => [entry.version, entry.source, rows(entry.items)])
}
