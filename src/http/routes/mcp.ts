/**
 * @module http/routes/mcp
 * `/mcp`: a session's dialect tools over MCP Streamable HTTP, stateless per request, in both
 * protocol eras of the MCP TypeScript SDK v2: the 2025 revisions (`initialize`, 2024-11-05 to
 * 2025-11-25) and 2026-07-28 (`server/discover`, a `_meta` envelope on every request).
 *
 * A `tools/call` is a round holding that one tool call: it runs through `runRound` inside the
 * store's update, exactly as `POST /v1/sessions/{id}/rounds` does, so both APIs share state and
 * texts. Nothing lives in process memory between requests: every request gets a fresh MCP server
 * and transport, and the session is read from the store.
 *
 * The todo session of a request: the `X-Session-Id` header when the host sends one; else, on the
 * 2025 revisions, the `Mcp-Session-Id` issued at `initialize` (one per connection of the host).
 * 2026-07-28 has no such thing, and nothing else per client either: a request carries its
 * protocol version, its capabilities and, optionally, `clientInfo`, which is a product's name and
 * version (the same for every copy of a host, self-reported, and the spec says servers SHOULD NOT
 * change behaviour on it). The revision's answer to cross-call state (SEP-2567, "Servers that
 * need cross-call state use explicit, server-minted handles passed as ordinary tool arguments")
 * is what is done here: the tools listed over MCP gain an optional `session_id` argument, and a
 * call without it runs on a session minted for it, which the result names so the model passes
 * it back. No two clients can share a minted session: its id is a random UUID.
 */
import { randomUUID } from 'node:crypto'
import {
  createMcpHandler,
  isLegacyRequest,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  WebStandardStreamableHTTPServerTransport,
  type CallToolResult,
  type JSONRPCMessage,
  type Resource,
  type Result,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server'
import type { Context } from 'hono'
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status'
import { z } from 'zod'
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { OriginHints } from '../../core/origin.js'
import { FLAVOURS, type Flavour, type SessionKey } from '../../core/session.js'
import { getDialect } from '../../dialects/registry.js'
import { resolveDialect } from '../../dialects/round.js'
import type { Dialect } from '../../dialects/types.js'
import { formatTool } from '../../tools/formats.js'
import { limitsOf, serviceDepsOf, type AppDeps } from '../deps.js'
import type { AppEnv } from '../context.js'
import { batchRefusal, mcpBody, type RpcRefusal } from '../mcp-guards.js'
import { originHintsOf } from '../origin-headers.js'
import type { ServiceDeps } from '../../service/deps.js'
import { toServiceError } from '../../service/error-map.js'
import { findSession } from '../../service/reads.js'
import { runRound } from '../../service/rounds.js'
import { SESSION_ID_PATTERN } from '../schemas.js'
import { renderedList } from '../../service/views.js'

export const MCP_PATH = '/mcp'

/** Names the todo session; without it, the `Mcp-Session-Id` issued at initialize does. */
export const SESSION_HEADER = 'x-session-id'
/** The 2025 revisions' session header, issued at initialize; ignored on 2026-07-28. */
const MCP_SESSION_HEADER = 'mcp-session-id'
/** The tool argument naming the todo session on 2026-07-28, when no `X-Session-Id` does. */
export const SESSION_ARGUMENT = 'session_id'
/** Chooses the dialect of a new session (else the session's, else `s03`); so does `?dialect=`. */
export const DIALECT_HEADER = 'x-dialect'
/**
 * Chooses the flavour of a new session (`langchain-todos`: `python` or `js`), as a round's
 * `settings.flavour` does; so does `?flavour=`. A session keeps the flavour it was created with.
 */
export const FLAVOUR_HEADER = 'x-flavour'

const RESOURCE_PREFIX = 'agent-todos://sessions/'
const RESOURCE_SUFFIX = '/todos'
const RESOURCE_PATTERN = /^agent-todos:\/\/sessions\/([^/]+)\/todos$/

/** The 2025 revisions' code for an unknown resource; 2026-07-28 uses Invalid params. */
const RESOURCE_NOT_FOUND_2025 = -32002

const SERVER_INFO = { name: 'agent-todos', version: '1.0.0' }

const INSTRUCTIONS =
  'Use the todo tools to plan multi-step tasks: keep the list current, mark an item in_progress ' +
  'before starting it and completed when done. The current list is the resource of this session.'

/** What a request acts on: its tenant, its todo session (if named) and the dialect it asked for. */
interface McpScope {
  tenant: string
  sessionId: string | null
  /** 2026-07-28 without `X-Session-Id`: each tool call names its session in `session_id`. */
  byArgument: boolean
  requested: string | undefined
  /** The flavour asked for a new session. */
  flavour: Flavour | undefined
  /** What the request's `X-Agent-*` headers (and the key's user) say of the origin. */
  origin?: OriginHints[]
}

/** The settings a scope's request gives a new session. */
const settingsOf = (scope: McpScope) =>
  scope.flavour === undefined ? undefined : { flavour: scope.flavour }

/**
 * The URI of a session's rendered list as an MCP resource.
 * @param sessionId - the session
 */
export const todosResourceUri = (sessionId: string) =>
  `${RESOURCE_PREFIX}${sessionId}${RESOURCE_SUFFIX}`

/** A JSON-RPC error envelope answered by the route itself, before any dispatch. */
function rpcError(
  c: Context,
  status: 200 | 400 | 403 | 405,
  code: number,
  message: string,
  id: string | number | null = null,
  headers: Record<string, string> = {}
) {
  return c.json({ jsonrpc: '2.0', error: { code, message }, id }, status, headers)
}

const refuse = (c: Context, refusal: RpcRefusal, id: string | number | null = null) =>
  rpcError(c, refusal.status, refusal.code, refusal.message, id)

/**
 * A use case's refusal of the request (a 4xx code of the catalog, service/error-map) as Invalid
 * Request with its detail; a failure of the service (5xx: the store unreachable, contention)
 * thrown on as it came, which the SDK answers as an internal error.
 */
const protocolError = (error: unknown): never => {
  const known = toServiceError(error)
  if (known && known.status < 500) {
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, known.message)
  }
  throw error
}

function requireSession(scope: McpScope): SessionKey {
  if (scope.sessionId === null) {
    // only a 2025 request that skipped initialize (or dropped its Mcp-Session-Id) gets here
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      'No session: send an X-Session-Id header, or the Mcp-Session-Id this server issued at initialize.'
    )
  }
  return { tenant: scope.tenant, sessionId: scope.sessionId }
}

/** The dialect of the scope's session, else the requested one, else the default. */
async function dialectOf(deps: Pick<ServiceDeps, 'store'>, scope: McpScope): Promise<Dialect> {
  const current = scope.sessionId === null ? null : await findSession(deps, requireSession(scope))
  try {
    return resolveDialect(current, scope.requested, settingsOf(scope))
  } catch (error) {
    return protocolError(error)
  }
}

const Params = z.looseObject({})
const CallParams = z.looseObject({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
})
const ReadParams = z.looseObject({ uri: z.string() })

/**
 * Registers a handler whose params are checked by `schema` here, so a malformed request gets
 * Invalid params (-32602) with a readable message rather than the SDK's own wording.
 */
function handle<S extends z.ZodType>(
  server: Server,
  method: string,
  schema: S,
  handler: (params: z.infer<S>, ctx: ServerContext) => Promise<Result> | Result
) {
  server.setRequestHandler(method, { params: Params }, async (params, ctx) => {
    const parsed = schema.safeParse(params)
    if (!parsed.success) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Invalid params: ${z.prettifyError(parsed.error)}`
      )
    }
    return handler(parsed.data, ctx)
  })
}

/** Runs `task` after every task queued before it: the calls of one batch apply in order. */
function serialize() {
  let tail: Promise<unknown> = Promise.resolve()
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task)
    tail = run.catch(() => {})
    return run
  }
}

/** The schema of the `session_id` argument, as the tools listed over MCP show it. */
const SESSION_ARGUMENT_SCHEMA = {
  type: 'string',
  pattern: SESSION_ID_PATTERN.source,
  description:
    'The todo list (session) this call works on. Leave it out on your first call: the result ' +
    'names a new session_id. Pass that same session_id on every later call of these tools, or ' +
    'the call starts a new, empty list.',
}

/**
 * A tool as listed to a 2026-07-28 client without `X-Session-Id`: its input schema gains the
 * optional `session_id`. Only here: the REST listings (`GET /v1/tools`) stay the natives'.
 */
function withSessionArgument(tool: Tool): Tool {
  const { inputSchema } = tool
  const properties = { ...inputSchema.properties, [SESSION_ARGUMENT]: SESSION_ARGUMENT_SCHEMA }
  return { ...tool, inputSchema: { ...inputSchema, properties } }
}

/** The text added to a result whose call ran on a session minted for it. */
const mintedNote = (sessionId: string) =>
  `session_id: ${sessionId}. This call started a new todo list; pass "${SESSION_ARGUMENT}": ` +
  `"${sessionId}" in every later call of these tools to keep working on it.`

/** A tool result the model reads and fixes (a bad `session_id`), not a protocol fault. */
const toolError = (text: string): CallToolResult => ({
  content: [{ type: 'text', text: `Error: ${text}` }],
  isError: true,
})

type CallTarget =
  { key: SessionKey; input: Record<string, unknown>; minted: boolean } | { refusal: CallToolResult }

/**
 * The session a tool call acts on and the input its dialect gets: the scope's session; else
 * (2026-07-28 without `X-Session-Id`) the call's `session_id`, stripped from the input, or a
 * session minted for the call.
 */
function callTarget(scope: McpScope, args: Record<string, unknown>): CallTarget {
  if (!scope.byArgument) return { key: requireSession(scope), input: args, minted: false }
  const { [SESSION_ARGUMENT]: named, ...input } = args
  if (named === undefined) {
    const key = { tenant: scope.tenant, sessionId: `mcp-${randomUUID()}` }
    return { key, input, minted: true }
  }
  if (typeof named !== 'string' || !SESSION_ID_PATTERN.test(named)) {
    const message = `${SESSION_ARGUMENT} must be a string matching ${SESSION_ID_PATTERN.source}: pass the session_id a previous result named, or leave it out to start a new list.`
    return { refusal: toolError(message) }
  }
  return { key: { tenant: scope.tenant, sessionId: named }, input, minted: false }
}

/**
 * One MCP server for one request, bound to its scope.
 * @param deps - the use cases' store, clock and limits
 * @param scope - tenant, session and requested dialect
 */
function createMcpServer(deps: ServiceDeps, scope: McpScope): Server {
  // The low-level server, not McpServer: a call's arguments must reach the dialect unvalidated
  // (it is lenient where the native tool is, and words its own errors), and tools/list must
  // advertise the dialect's own JSON Schema.
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, resources: {} },
    instructions: INSTRUCTIONS,
  })
  const inOrder = serialize()

  handle(server, 'tools/list', Params, async () => {
    const dialect = await dialectOf(deps, scope)
    const tools = dialect.tools.map((spec) => formatTool(spec, 'mcp') as Tool)
    return { tools: scope.byArgument ? tools.map(withSessionArgument) : tools }
  })

  handle(server, 'tools/call', CallParams, (params, ctx) =>
    inOrder(async (): Promise<CallToolResult> => {
      const { name } = params
      const target = callTarget(scope, params.arguments ?? {})
      if ('refusal' in target) return target.refusal
      const { key, input, minted } = target
      const call = { id: String(ctx.mcpReq.id), name, input }
      const round = { dialect: scope.requested, settings: settingsOf(scope), tool_calls: [call] }
      const outcome = await runRound(deps, key, round, {
        // the protocol's check: the called tool is one of the session's dialect
        check: (current) => {
          const dialect = resolveDialect(current, scope.requested, settingsOf(scope))
          if (!dialect.tools.some((tool) => tool.name === name)) {
            throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`)
          }
        },
        who: scope.origin ? { hints: scope.origin } : undefined,
      }).catch(protocolError)
      const [result] = outcome.results
      const content: CallToolResult['content'] = [{ type: 'text', text: result.content }]
      if (outcome.notice) content.push({ type: 'text', text: outcome.notice.text })
      if (minted) content.push({ type: 'text', text: mintedNote(key.sessionId) })
      const structured = result.structured
      return {
        content,
        isError: result.is_error,
        ...(structured !== null && typeof structured === 'object' && !Array.isArray(structured)
          ? { structuredContent: structured }
          : {}),
      }
    })
  )

  handle(server, 'resources/list', Params, () => {
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

  handle(server, 'resources/templates/list', Params, () => ({
    resourceTemplates: [
      {
        uriTemplate: `${RESOURCE_PREFIX}{session_id}${RESOURCE_SUFFIX}`,
        name: 'todos',
        description: "A session's list as its dialect renders it for the model.",
        mimeType: 'text/plain',
      },
    ],
  }))

  handle(server, 'resources/read', ReadParams, async ({ uri }) => {
    const sessionId = RESOURCE_PATTERN.exec(uri)?.[1]
    if (sessionId === undefined || !SESSION_ID_PATTERN.test(sessionId)) {
      // -32602 with data {uri} on the wire; the legacy leg restores the 2025 code (-32002)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource ${uri} not found`, {
        uri,
      })
    }
    const session = await findSession(deps, { tenant: scope.tenant, sessionId })
    // An unknown session reads as the empty list it would start as (in this tenant).
    const text = session
      ? renderedList(session)
      : resolveDialect(null, scope.requested, settingsOf(scope)).render([])
    return { contents: [{ uri, mimeType: 'text/plain', text }] }
  })

  return server
}

/**
 * Reads the scope from the request of one era (`legacy`: the 2025 revisions); a bad header or
 * query gives a JSON-RPC error response. Header values arrive trimmed of surrounding
 * whitespace (RFC 9110 §5.5): Node's parser and the Fetch `Headers` both strip it.
 */
function scopeOf(c: Context<AppEnv>, legacy: boolean): McpScope | Response {
  const requested = c.req.header(DIALECT_HEADER) ?? c.req.query('dialect')
  if (requested !== undefined && !getDialect(requested)) {
    return rpcError(c, 400, ProtocolErrorCode.InvalidRequest, `Unknown dialect '${requested}'.`)
  }
  const flavour = c.req.header(FLAVOUR_HEADER) ?? c.req.query('flavour')
  if (flavour !== undefined && !(FLAVOURS as readonly string[]).includes(flavour)) {
    const known = FLAVOURS.join(', ')
    return rpcError(
      c,
      400,
      ProtocolErrorCode.InvalidRequest,
      `Unknown flavour '${flavour}' (${known}).`
    )
  }
  const named = c.req.header(SESSION_HEADER)
  // 2026-07-28 removed Mcp-Session-Id: a server SHOULD ignore it (transport spec, backward compatibility)
  const issued = legacy ? c.req.header(MCP_SESSION_HEADER) : undefined
  const sessionId = named ?? issued ?? null
  if (sessionId !== null && !SESSION_ID_PATTERN.test(sessionId)) {
    const header = named === undefined ? 'Mcp-Session-Id' : 'X-Session-Id'
    const message = `${header} must match ${SESSION_ID_PATTERN.source}.`
    return rpcError(c, 400, ProtocolErrorCode.InvalidRequest, message)
  }
  const byArgument = !legacy && named === undefined
  return {
    tenant: c.get('tenant'),
    sessionId,
    byArgument,
    requested,
    flavour: flavour as Flavour | undefined,
    origin: originHintsOf(c),
  }
}

/** The JSON-RPC messages of a body: the batch's, the one's, or none when it is not JSON. */
const messagesOf = (json: unknown): { method?: unknown; id?: unknown }[] =>
  (Array.isArray(json) ? (json as unknown[]) : json === undefined ? [] : [json]).map((message) =>
    message !== null && typeof message === 'object' ? message : {}
  )

/** The id to echo on an error about a single request; null for a batch or a notification. */
function singleId(json: unknown): string | number | null {
  if (Array.isArray(json) || json === null || typeof json !== 'object') return null
  const { id } = json as { id?: unknown }
  return typeof id === 'string' || typeof id === 'number' ? id : null
}

/**
 * The request to hand to the SDK: the body re-attached (the route has read it), and an Accept
 * header naming both types the transport insists on. Clients that accept JSON alone are served
 * anyway, since every reply of this endpoint is JSON.
 */
function forwardRequest(c: Context<AppEnv>, text: string): Request {
  const headers = new Headers(c.req.raw.headers)
  headers.set('accept', 'application/json, text/event-stream')
  return new Request(c.req.url, { method: 'POST', headers, body: text })
}

/**
 * The SDK's response through the context, so headers set on it before (rate-limit headers,
 * `Mcp-Session-Id`) are kept.
 */
function relay(c: Context<AppEnv>, res: Response): Response {
  const headers = Object.fromEntries(res.headers)
  if (!res.body) return c.body(null, res.status as StatusCode, headers)
  return c.body(res.body, res.status as ContentfulStatusCode, headers)
}

/** The 2025 revisions' error code for an unknown resource, on one outgoing message. */
function withLegacyResourceCode(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message) || message.error.code !== (ProtocolErrorCode.InvalidParams as number)) {
    return message
  }
  const data = message.error.data as { uri?: unknown } | undefined
  if (typeof data?.uri !== 'string' || Object.keys(data).length !== 1) return message
  return { ...message, error: { ...message.error, code: RESOURCE_NOT_FOUND_2025 } }
}

/** Serves a 2025-era request: a fresh server and a JSON-replying stateless transport. */
async function serveLegacy(
  deps: ServiceDeps,
  scope: McpScope,
  request: Request,
  parsedBody: unknown,
  onerror: (error: Error) => void
): Promise<Response> {
  const server = createMcpServer(deps, scope)
  server.onerror = onerror
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  })
  const send = transport.send.bind(transport)
  transport.send = (message, options) => send(withLegacyResourceCode(message), options)
  await server.connect(transport)
  try {
    return await transport.handleRequest(request, { parsedBody })
  } finally {
    await server.close()
  }
}

/**
 * Registers `/mcp` behind the same bearer keys as `/v1`. Outside the OpenAPI document: its
 * replies are JSON-RPC envelopes, not problem details.
 * @param app - the app
 * @param deps - store, keys, clock
 */
export function registerMcpRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps) {
  const service = serviceDepsOf(deps)
  const scopes = new WeakMap<Request, McpScope>()
  const modern = createMcpHandler(
    ({ requestInfo }) => {
      const scope = requestInfo && scopes.get(requestInfo)
      if (!scope) throw new Error('mcp: a modern request without its scope')
      return createMcpServer(service, scope)
    },
    { legacy: 'reject', onerror: (err) => deps.logger.debug({ err }, 'mcp request refused') }
  )
  deps.shutdownSignal?.addEventListener('abort', () => void modern.close(), { once: true })
  const { maxToolCalls } = limitsOf(deps)

  app.post(MCP_PATH, async (c) => {
    const { text, json } = await mcpBody(c)
    const messages = messagesOf(json)
    const request = forwardRequest(c, text)
    const legacy = await isLegacyRequest(request, json)
    const scope = scopeOf(c, legacy)
    if (scope instanceof Response) return scope

    const batch = batchRefusal(json, c.req.header('mcp-protocol-version'), maxToolCalls)
    if (batch) return refuse(c, batch)
    // A viewer key may list tools and read the list, not call tools.
    const readOnly = c.get('role') === 'viewer'
    if (readOnly && messages.some((message) => message.method === 'tools/call')) {
      const message = 'This key is read-only (role viewer): it cannot call tools.'
      return rpcError(c, 403, ProtocolErrorCode.InvalidRequest, message, singleId(json))
    }
    // A dialect conflict fails the handshake, not the first call: a host then shows the error
    // instead of a connected server without tools. Not server/discover (2026-07-28): clients
    // read any error there as "no 2026 support", so the conflict surfaces at tools/list.
    const opening = messages.find((message) => message.method === 'initialize')
    if (opening && scope.sessionId !== null) {
      try {
        await dialectOf(deps, scope)
      } catch (error) {
        if (!(error instanceof ProtocolError)) throw error
        return rpcError(c, 200, error.code, error.message, singleId(json))
      }
    }

    const onerror = (err: Error) => c.get('logger')?.debug({ err }, 'mcp transport error')
    if (legacy) {
      // Stateless: the issued id only names the todo session of a client that sends no X-Session-Id.
      if (opening) c.header('Mcp-Session-Id', `mcp-${randomUUID()}`)
      return relay(c, await serveLegacy(service, scope, request, json, onerror))
    }
    scopes.set(request, scope)
    return relay(c, await modern.fetch(request, { parsedBody: json }))
  })

  // No server-initiated stream (GET) and nothing to terminate (DELETE): state lives in the
  // todo session. Every method but POST gets this answer.
  const postOnly = 'Method not allowed: this server answers POST only.'
  app.all(MCP_PATH, (c) => rpcError(c, 405, -32000, postOnly, null, { Allow: 'POST' }))
}
