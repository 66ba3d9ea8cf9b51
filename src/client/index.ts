/**
 * @module client
 * `agent-todos-client` (also `agent-todos/client`): a typed client of the HTTP API, its types
 * generated from openapi/openapi.json (`npm run client`), its requests made by openapi-fetch (the
 * client's one dependency; the package's CLI adds eventsource-parser). The package is built
 * from this folder and src/cli by packages/client.
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
export type SessionSummary = Schemas['SessionSummary']
export type SessionList = Schemas['SessionList']
export type Item = Schemas['Item']
export type Progress = Schemas['Progress']
export type ProblemDetails = Schemas['ProblemDetails']

/** The tool formats of `GET /v1/tools`. */
export type ToolFormat = Schemas['ToolsReply']['format']
export type DialectName = Schemas['DialectName']
/** The reply of `GET /v1/tools` for one format. */
export type ToolsReplyOf<F extends ToolFormat> = Extract<Schemas['ToolsReply'], { format: F }>
/**
 * A dialect's tools in one provider's format, typed so they go straight into that provider's
 * SDK: `openai` into `openai.chat.completions.create({tools})`, `openai-responses` into
 * `openai.responses.create({tools})`, `anthropic` into `anthropic.messages.create({tools})`,
 * `gemini` into a genai `functionDeclarations`, `mcp` into an MCP `tools/list` result.
 */
export type ToolsOf<F extends ToolFormat> = ToolsReplyOf<F>['tools']

export type AgentTodosClient = Client<paths>

export interface AgentTodosClientOptions extends ClientOptions {
  /** The server, e.g. `http://localhost:8080` (no `/v1`: the paths carry it). */
  baseUrl: string
  /** A key of the server's `AUTH_KEYS`, sent as `Authorization: Bearer <key>`. */
  apiKey?: string
}

/** A failed request of the API, with its problem details when the server sent some. */
export class AgentTodosError extends Error {
  constructor(
    readonly status: number,
    readonly problem: ProblemDetails | undefined
  ) {
    super(problem ? `${status} ${problem.title}: ${problem.detail}` : `HTTP ${status}`)
    this.name = 'AgentTodosError'
  }
}

/**
 * A dialect's tool definitions in one provider's format (`GET /v1/tools`), typed by the format.
 * @param client - a client from `createAgentTodosClient`
 * @param query - dialect, format, and `strict` for strict schemas (openai, openai-responses,
 *   anthropic)
 * @throws AgentTodosError when the server refuses
 * @example
 * ```ts
 * const tools = await listTools(todos, { dialect: 's03', format: 'openai' })
 * await openai.chat.completions.create({ model, messages, tools })
 * ```
 */
export async function listTools<F extends ToolFormat>(
  client: AgentTodosClient,
  query: { dialect?: DialectName; format: F; strict?: boolean }
): Promise<ToolsOf<F>> {
  const { data, error, response } = await client.GET('/v1/tools', {
    params: {
      query: {
        dialect: query.dialect,
        format: query.format,
        strict: query.strict === undefined ? undefined : query.strict ? 'true' : 'false',
      },
    },
  })
  if (!data) throw new AgentTodosError(response.status, error)
  // the server answers in the format it was asked for (ToolsReply is discriminated by it)
  return (data as ToolsReplyOf<F>).tools as ToolsOf<F>
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
