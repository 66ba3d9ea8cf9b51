/**
 * What the decision tests share: an app with personal keys (alice, bob, a viewer, an admin, another
 * tenant), a held `?decide=1` hook, and waiting for its request to show.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { hashKey, type ApiKey } from '../src/http/auth.js'
import type { AppDeps } from '../src/http/deps.js'
import { makeTestApp, type TestApp, type TestResponse } from './helpers.js'
import { fixtureJson, ingest } from './ingest-support.js'

export const KEYS = {
  alice: 'alice-key-0001',
  bob: 'bob-key-00002',
  viewer: 'alice-viewer-03',
  admin: 'admin-key-0004',
  other: 'other-tenant-05',
  shared: 'shared-key-006',
} as const

const TABLE: Record<keyof typeof KEYS, ApiKey> = {
  alice: { tenant: 'acme', role: 'agent', user: 'alice@acme.dev' },
  bob: { tenant: 'acme', role: 'agent', user: 'bob@acme.dev' },
  viewer: { tenant: 'acme', role: 'viewer', user: 'alice@acme.dev' },
  admin: { tenant: 'acme', role: 'admin', user: 'root@acme.dev' },
  other: { tenant: 'globex', role: 'agent', user: 'alice@acme.dev' },
  shared: { tenant: 'acme', role: 'agent' },
}

/** An app whose keys name people (a keys file's `user`). */
export function makeDecisionApp(overrides: Partial<AppDeps> = {}): TestApp {
  const keys = new Map(
    Object.entries(KEYS).map(([name, secret]) => [
      hashKey(secret),
      TABLE[name as keyof typeof KEYS],
    ])
  )
  return makeTestApp({
    keys,
    decisions: { waitMs: 30_000, holdMs: 30_000, open: false },
    ...overrides,
  })
}

export const bearer = (name: keyof typeof KEYS) => ({ Authorization: `Bearer ${KEYS[name]}` })

export const permissionInput = fixtureJson('claude-code/real-permission-request.json')
export const claudeSession = `claude:${permissionInput.session_id}`

/**
 * Waits until `check` resolves truthy (polling the app, never a fixed sleep), for at most `ms`.
 * @returns its last value
 */
export async function until<T>(check: () => Promise<T>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value || Date.now() > end) return value
    await sleep(5)
  }
}

/** The session's pending request, once it shows. */
export async function pendingOf(t: TestApp, sessionId: string, key: keyof typeof KEYS = 'alice') {
  const request = await until(async () => {
    const res = await t.call('GET', `/v1/sessions/${sessionId}`, undefined, bearer(key))
    return res.status === 200 ? res.body.waiting?.request : undefined
  })
  if (!request) throw new Error(`no pending request on ${sessionId}`)
  return request
}

/**
 * Posts a `?decide=1` hook (held): the reply's promise, and the request once it shows.
 * @param t - the app
 * @param route - the agent route
 * @param body - the hook input
 * @param sessionId - the session it feeds
 */
export async function heldHook(
  t: TestApp,
  route: string,
  body: unknown,
  sessionId: string
): Promise<{ reply: Promise<TestResponse>; request: any }> {
  const reply = ingest(t, route, body, '?decide=1', bearer('alice'))
  const request = await pendingOf(t, sessionId)
  return { reply, request }
}

/** Posts an answer. */
export const answer = (
  t: TestApp,
  sessionId: string,
  body: unknown,
  key: keyof typeof KEYS = 'alice',
  headers: Record<string, string> = {}
) => t.call('POST', `/v1/sessions/${sessionId}/decisions`, body, { ...bearer(key), ...headers })
