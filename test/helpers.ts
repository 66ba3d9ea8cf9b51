/**
 * Shared test fixtures: an app on a memory store, the typed client bound to it, JSON request helpers.
 */
import pino from 'pino'
import {
  createAgentTodosClient,
  type AgentTodosClient,
  type RoundRequest,
} from '../src/client/index.js'
import { createApp } from '../src/http/app.js'
import type { AppDeps } from '../src/http/deps.js'
import { parseAuthKeys } from '../src/http/auth.js'
import { createMemoryStore } from '../src/store/memory.js'
import type { SessionStore } from '../src/store/types.js'
import { servedContract, type Contract } from './contract.js'

export interface TestApp {
  app: ReturnType<typeof createApp>
  store: SessionStore
  clock: { now: number }
  /**
   * The published typed client (`src/client`) bound to this app in process: `data` and `error`
   * are typed by the OpenAPI document, so a test that reads a field the document lacks does not
   * compile, and each response is checked against the document (its status documented, its body
   * valid), so one the document does not describe fails the test. Use it for the documented
   * routes; `call` is for what the document forbids.
   */
  api: AgentTodosClient
  /** `api`, sending `Authorization: Bearer <key>`. */
  apiAs(key: string): AgentTodosClient
  /**
   * Untyped JSON request, for what the typed client cannot send (malformed JSON, bodies or
   * headers the document forbids, routes outside it); returns status, headers and parsed body
   * (text when not JSON).
   */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>
  ): Promise<TestResponse>
}

export interface TestResponse {
  status: number
  headers: Headers
  body: any
  text: string
}

/**
 * Builds an app on a fresh memory store with a movable clock.
 * @param overrides - deps to replace
 */
export function makeTestApp(overrides: Partial<AppDeps> = {}): TestApp {
  const clock = { now: Date.parse('2026-11-30T12:00:00Z') }
  const now = () => clock.now
  const store =
    overrides.store ?? createMemoryStore({ ttlMs: 7 * 24 * 3600 * 1000, historyLimit: 50, now })
  const app = createApp({
    store,
    logger: pino({ level: 'silent' }),
    keys: parseAuthKeys(undefined),
    bodyLimitBytes: 1024 * 1024,
    staleAfterMs: 900_000,
    historyLimit: 50,
    idempotencyTtlMs: 24 * 3600 * 1000,
    now,
    isDraining: () => false,
    openapiDocument: null,
    sseHeartbeatMs: 15_000,
    ...overrides,
  })
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {}
  ): Promise<TestResponse> => {
    const init: RequestInit = { method, headers: { ...headers } }
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body)
      ;(init.headers as Record<string, string>)['Content-Type'] ??= 'application/json'
    }
    const res = await app.request(path, init)
    const text = await res.text()
    let parsed: unknown = text
    if (/json/.test(res.headers.get('content-type') ?? '') && text) parsed = JSON.parse(text)
    return { status: res.status, headers: res.headers, body: parsed, text }
  }
  // the client's own factory, its fetch answered by the app: no socket, the same requests
  const apiAs = (apiKey?: string) =>
    createAgentTodosClient({
      baseUrl: 'http://test',
      apiKey,
      fetch: async (request: Request) => {
        const { method, url } = request
        const response = await app.request(request)
        await assertDocumented(method, new URL(url).pathname, response)
        return response
      },
    })
  return { app, store, clock, call, api: apiAs(), apiAs }
}

let contract: Contract | undefined

/**
 * Throws when the OpenAPI document does not describe a response (status, content type, body):
 * the typed client's types are only as true as the document.
 * @param method - the request's method
 * @param path - the request's path, without the query
 * @param response - the app's response (read through a clone)
 */
async function assertDocumented(method: string, path: string, response: Response) {
  const contentType = response.headers.get('content-type')
  const streamed = /event-stream/.test(contentType ?? '')
  const problems = (contract ??= servedContract()).check({
    method,
    path,
    status: response.status,
    contentType,
    body: streamed ? undefined : await response.clone().text(),
  })
  if (problems.length > 0)
    throw new Error(`The OpenAPI document does not describe this response:\n${problems.join('\n')}`)
}

/**
 * Posts a round of tool calls to a session.
 * @param t - the test app
 * @param sessionId - the session
 * @param calls - tool calls
 * @param extra - other body fields (dialect, settings)
 */
export function round(
  t: TestApp,
  sessionId: string,
  calls: { id?: string; name: string; input?: unknown; arguments?: unknown; args?: unknown }[],
  extra: Record<string, unknown> = {}
) {
  return t.call('POST', `/v1/sessions/${sessionId}/rounds`, { ...extra, tool_calls: calls })
}

/**
 * Posts a round of tool calls through the typed client.
 * @param t - the test app
 * @param sessionId - the session
 * @param calls - tool calls
 * @param extra - other body fields (dialect, settings)
 */
export function typedRound(
  t: TestApp,
  sessionId: string,
  calls: RoundRequest['tool_calls'],
  extra: Omit<RoundRequest, 'tool_calls'> = {}
) {
  return t.api.POST('/v1/sessions/{session_id}/rounds', {
    params: { path: { session_id: sessionId } },
    body: { ...extra, tool_calls: calls },
  })
}
