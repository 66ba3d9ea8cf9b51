/**
 * @module http/routes/mcp
 * `/mcp`: a session's dialect tools over MCP Streamable HTTP, stateless per request.
 *
 * A `tools/call` is a round holding that one tool call: it runs through `applyRound` inside the
 * store's update, exactly as `POST /v1/sessions/{id}/rounds` does, so both APIs share state and
 * texts. Nothing lives in process memory between requests: every request gets a fresh MCP server
 * and transport, and the session is read from the store.
 */
import { randomUUID } from 'node:crypto'
import { StreamableHTTPTransport } from '@hono/mcp'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Resource,
  type ServerResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { z } from 'zod'
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { SessionKey } from '../../core/session.js'
import { getDialect } from '../../dialects/registry.js'
import { DialectConflictError, resolveDialect } from '../../dialects/round.js'
import type { Dialect } from '../../dialects/types.js'
import { formatTool } from '../../tools/formats.js'
import type { AppDeps } from '../deps.js'
import type { AppEnv } from '../env.js'
import { ProblemError } from '../problem.js'
import { runRound } from '../round-runner.js'
import { SESSION_ID_PATTERN } from '../schemas.js'
import { renderSession } from '../views.js'

export const MCP_PATH = '/mcp'

/** Names the todo session; without it, the `Mcp-Session-Id` issued at initialize does. */
export const SESSION_HEADER = 'x-session-id'
/** Chooses the dialect of a new session (else the session's, else `s03`); so does `?dialect=`. */
export const DIALECT_HEADER = 'x-dialect'

const RESOURCE_PREFIX = 'agent-todos://sessions/'
const RESOURCE_SUFFIX = '/todos'
const RESOURCE_PATTERN = /^agent-todos:\/\/sessions\/([^/]+)\/todos$/

const SERVER_INFO = { name: 'agent-todos', version: '1.0.0' }

const INSTRUCTIONS =
  'Use the todo tools to plan multi-step tasks: keep the list current, mark an item in_progress ' +
  'before starting it and completed when done. The current list is the resource of this session.'

/** What a request acts on: its tenant, its todo session (if named) and the dialect it asked for. */
interface McpScope {
  tenant: string
  /** A viewer key may list tools and read the list, not call tools. */
  readOnly: boolean
  sessionId: string | null
  requested: string | undefined
}

/**
 * The URI of a session's rendered list as an MCP resource.
 * @param sessionId - the session
 */
export const todosResourceUri = (sessionId: string) =>
  `${RESOURCE_PREFIX}${sessionId}${RESOURCE_SUFFIX}`

function rpcError(c: Context, status: 400 | 405, code: number, message: string, headers = {}) {
  return c.json({ jsonrpc: '2.0', error: { code, message }, id: null }, status, headers)
}

const isInitialize = (body: unknown) =>
  (Array.isArray(body) ? body : [body]).some(
    (message) => (message as { method?: unknown } | null)?.method === 'initialize'
  )

/**
 * A JSON-RPC error reply. Not the SDK's McpError, whose message already carries an
 * `MCP error <code>:` prefix that clients add once more.
 */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string
  ) {
    super(message)
    this.name = 'RpcError'
  }
}

const protocolError = (error: unknown): never => {
  if (error instanceof DialectConflictError || error instanceof ProblemError) {
    throw new RpcError(ErrorCode.InvalidRequest, error.message)
  }
  throw error
}

function requireSession(scope: McpScope): SessionKey {
  if (scope.sessionId === null) {
    throw new RpcError(
      ErrorCode.InvalidRequest,
      'No session: send an X-Session-Id header, or the Mcp-Session-Id this server issued at initialize.'
    )
  }
  return { tenant: scope.tenant, sessionId: scope.sessionId }
}

type RequestSchema = z.ZodObject<{ method: z.ZodLiteral<string> }>

/**
 * Registers a handler whose request is checked by `schema` here, so a malformed request gets
 * Invalid params (-32602) rather than the SDK's Internal error (-32603) for a failed parse.
 */
function handle<S extends RequestSchema>(
  server: Server,
  schema: S,
  handler: (request: z.infer<S>, extra: { requestId: string | number }) => Promise<ServerResult>
) {
  const method = schema.shape.method.value
  server.setRequestHandler(z.looseObject({ method: z.literal(method) }), async (request, extra) => {
    const parsed = schema.safeParse(request)
    if (!parsed.success) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Invalid params: ${z.prettifyError(parsed.error)}`
      )
    }
    return handler(parsed.data, extra)
  })
}

/** The session's dialect, else the requested one, else the default. */
async function dialectOf(deps: AppDeps, scope: McpScope): Promise<Dialect> {
  const current = scope.sessionId === null ? null : await deps.store.get(requireSession(scope))
  try {
    return resolveDialect(current, scope.requested)
  } catch (error) {
    return protocolError(error)
  }
}

/**
 * One MCP server for one request, bound to its scope.
 * @param deps - the app's store and clock
 * @param scope - tenant, session and requested dialect
 */
function createMcpServer(deps: AppDeps, scope: McpScope): Server {
  // The low-level server, not McpServer: a call's arguments must reach the dialect unvalidated
  // (it is lenient where the native tool is, and words its own errors), and tools/list must
  // advertise the dialect's own JSON Schema.
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, resources: {} },
    instructions: INSTRUCTIONS,
  })

  handle(server, ListToolsRequestSchema, async () => {
    const dialect = await dialectOf(deps, scope)
    return { tools: dialect.tools.map((spec) => formatTool(spec, 'mcp') as Tool) }
  })

  handle(server, CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: input } = request.params
    const key = requireSession(scope)
    if (scope.readOnly) {
      throw new RpcError(
        ErrorCode.InvalidRequest,
        'This key is read-only (role viewer): it cannot call tools.'
      )
    }
    const call = { id: String(extra.requestId), name, input: input ?? {} }
    const round = { dialect: scope.requested, tool_calls: [call] }
    const outcome = await runRound(deps, key, round, (current) => {
      const dialect = resolveDialect(current, scope.requested)
      if (!dialect.tools.some((tool) => tool.name === name)) {
        throw new RpcError(ErrorCode.InvalidParams, `Tool ${name} not found`)
      }
    }).catch(protocolError)
    const [result] = outcome.results
    const content: CallToolResult['content'] = [{ type: 'text', text: result.content }]
    if (outcome.notice) content.push({ type: 'text', text: outcome.notice.text })
    const structured = result.structured
    return {
      content,
      isError: result.is_error,
      ...(structured !== null && typeof structured === 'object' && !Array.isArray(structured)
        ? { structuredContent: structured as Record<string, unknown> }
        : {}),
    }
  })

  handle(server, ListResourcesRequestSchema, async () => {
    if (scope.sessionId === null) return { resources: [] }
    const resource: Resource = {
      uri: todosResourceUri(scope.sessionId),
      name: 'todos',
      title: `Todo list of session ${scope.sessionId}`,
      description: "The session's list as its dialect renders it for the model.",
      mimeType: 'text/plain',
    }
    return { resources: [resource] }
  })

  handle(server, ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: `${RESOURCE_PREFIX}{session_id}${RESOURCE_SUFFIX}`,
        name: 'todos',
        description: "A session's list as its dialect renders it for the model.",
        mimeType: 'text/plain',
      },
    ],
  }))

  handle(server, ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params
    const sessionId = RESOURCE_PATTERN.exec(uri)?.[1]
    if (sessionId === undefined || !SESSION_ID_PATTERN.test(sessionId)) {
      throw new RpcError(ErrorCode.InvalidParams, `Resource ${uri} not found`)
    }
    const session = await deps.store.get({ tenant: scope.tenant, sessionId })
    // An unknown session reads as the empty list it would start as (in this tenant).
    const text = session ? renderSession(session) : resolveDialect(null, scope.requested).render([])
    return { contents: [{ uri, mimeType: 'text/plain', text }] }
  })

  return server
}

/** Reads the scope from the request; a bad header or query gives a JSON-RPC error response. */
function scopeOf(c: Context<AppEnv>): McpScope | Response {
  const requested = c.req.header(DIALECT_HEADER) ?? c.req.query('dialect')
  if (requested !== undefined && !getDialect(requested)) {
    return rpcError(c, 400, ErrorCode.InvalidRequest, `Unknown dialect '${requested}'.`)
  }
  const named = c.req.header(SESSION_HEADER)
  const sessionId = named ?? c.req.header('mcp-session-id') ?? null
  if (sessionId !== null && !SESSION_ID_PATTERN.test(sessionId)) {
    const header = named === undefined ? 'Mcp-Session-Id' : 'X-Session-Id'
    const message = `${header} must match ${SESSION_ID_PATTERN.source}.`
    return rpcError(c, 400, ErrorCode.InvalidRequest, message)
  }
  return { tenant: c.get('tenant'), readOnly: c.get('role') === 'viewer', sessionId, requested }
}

/**
 * Registers `/mcp` behind the same bearer keys as `/v1`. Outside the OpenAPI document: its
 * replies are JSON-RPC envelopes, not problem details.
 * @param app - the app
 * @param deps - store, keys, clock
 */
export function registerMcpRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps) {
  app.post(MCP_PATH, async (c) => {
    const scope = scopeOf(c)
    if (scope instanceof Response) return scope
    // The transport parses again (and answers a JSON-RPC parse error) when this fails.
    const body: unknown = await c.req.json().catch(() => undefined)
    // Stateless: the issued id only names the todo session of a client that sends no X-Session-Id.
    if (isInitialize(body)) c.header('Mcp-Session-Id', `mcp-${randomUUID()}`)
    const server = createMcpServer(deps, scope)
    server.onerror = (err) => c.get('logger')?.debug({ err }, 'mcp transport error')
    const transport = new StreamableHTTPTransport({ enableJsonResponse: true })
    await server.connect(transport)
    try {
      return (await transport.handleRequest(c, body)) ?? c.body(null, 202)
    } catch (error) {
      if (error instanceof HTTPException && error.res) return error.getResponse()
      throw error
    } finally {
      await server.close()
    }
  })

  // No server-initiated stream (GET) and nothing to terminate (DELETE): state lives in the
  // todo session. Every method but POST gets this answer.
  const postOnly = 'Method not allowed: this server answers POST only.'
  app.all(MCP_PATH, (c) =>
    rpcError(c, 405, ErrorCode.ConnectionClosed, postOnly, { Allow: 'POST' })
  )
}
