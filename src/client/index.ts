/**
 * @module client
 * `agent-todos/client`: a typed client of the HTTP API, its types generated from
 * openapi/openapi.json (`npm run client`), its requests made by openapi-fetch.
 *
 * @example
 * ```ts
 * import { createAgentTodosClient } from 'agent-todos/client'
 *
 * const todos = createAgentTodosClient({
 *   baseUrl: 'http://localhost:8080',
 *   apiKey: process.env.AGENT_TODOS_KEY,
 * })
 * const { data, error } = await todos.POST('/v1/sessions/{session_id}/rounds', {
 *   params: { path: { session_id: 'run-42' } },
 *   body: { tool_calls: [{ id: 'toolu_01', name: 'todo', input: { items: [] } }] },
 * })
 * ```
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch'
import type { components, paths } from './schema.js'

export type { components, paths } from './schema.js'

type Schemas = components['schemas']
export type RoundRequest = Schemas['RoundRequest']
export type RoundReply = Schemas['RoundReply']
export type ToolCall = Schemas['ToolCall']
export type ToolResult = Schemas['ToolResult']
export type SessionView = Schemas['SessionView']
export type SessionList = Schemas['SessionList']
export type Item = Schemas['Item']
export type Progress = Schemas['Progress']
export type ProblemDetails = Schemas['ProblemDetails']

export type AgentTodosClient = Client<paths>

export interface AgentTodosClientOptions extends ClientOptions {
  /** The server, e.g. `http://localhost:8080` (no `/v1`: the paths carry it). */
  baseUrl: string
  /** A key of the server's `AUTH_KEYS`, sent as `Authorization: Bearer <key>`. */
  apiKey?: string
}

/**
 * A client of one agent-todos server. Every method (`GET`, `POST`, `PUT`, `DELETE`) takes a path
 * of the API and returns `{ data, error, response }`, typed by the path and status.
 * @param options - base URL, key, and any openapi-fetch option (custom `fetch`, headers…)
 */
export function createAgentTodosClient(options: AgentTodosClientOptions): AgentTodosClient {
  const { apiKey, ...rest } = options
  const client = createClient<paths>(rest)
  if (apiKey !== undefined) {
    client.use({
      onRequest({ request }) {
        request.headers.set('Authorization', `Bearer ${apiKey}`)
        return request
      },
    })
  }
  return client
}
