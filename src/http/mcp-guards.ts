/**
 * @module http/mcp-guards
 * What `/mcp` checks before any MCP message is dispatched (the `Origin` and `Host` rules are
 * every route's: http/origin-guard): JSON-RPC batches (which protocol revisions have them, how many messages one may
 * hold) and what a batch costs against the tenant's request budget.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { AppEnv } from './context.js'

/** The MCP protocol revision that dropped JSON-RPC batching (2025-03-26 and earlier have it). */
export const FIRST_REVISION_WITHOUT_BATCHES = '2025-06-18'

/** The SDK transport's own cap on the messages of one JSON-RPC batch. */
export const TRANSPORT_MAX_BATCH = 100

/** A refusal answered as a JSON-RPC error envelope (`id: null`), before any dispatch. */
export interface RpcRefusal {
  status: 400 | 403
  code: number
  message: string
}

/** JSON-RPC Invalid Request. */
const INVALID_REQUEST = -32600
/** Implementation-defined server error (the range MCP leaves to servers). */
export const SERVER_ERROR = -32000

/**
 * An `/mcp` request body: its text, and its JSON value when it parses (`undefined` otherwise,
 * and the transport answers the parse error). Read once per request.
 */
export interface McpBody {
  text: string
  json: unknown
}

const bodies = new WeakMap<Request, Promise<McpBody>>()

/**
 * Reads (once) the body of an `/mcp` request.
 * @param c - the request's context
 */
export function mcpBody(c: Context<AppEnv>): Promise<McpBody> {
  let body = bodies.get(c.req.raw)
  if (!body) {
    body = c.req.text().then((text) => {
      try {
        return { text, json: JSON.parse(text) as unknown }
      } catch {
        return { text, json: undefined }
      }
    })
    bodies.set(c.req.raw, body)
  }
  return body
}

/** The JSON-RPC messages of a body that is a batch (an array), else null. */
const batchOf = (json: unknown): unknown[] | null => (Array.isArray(json) ? json : null)

/**
 * Why a batch is refused, or null when it may run (or is no batch). Batches exist up to
 * 2025-03-26: a request naming a later revision in `MCP-Protocol-Version` gets none. A request
 * without the header is 2025-03-26 (as the transport spec says), so its batch runs, each message
 * counted; at most `MAX_TOOL_CALLS` (and the transport's 100) in one.
 * @param json - the parsed body
 * @param protocolVersion - the `MCP-Protocol-Version` header
 * @param maxToolCalls - `MAX_TOOL_CALLS`
 */
export function batchRefusal(
  json: unknown,
  protocolVersion: string | undefined,
  maxToolCalls: number
): RpcRefusal | null {
  const batch = batchOf(json)
  if (batch === null) return null
  if (protocolVersion !== undefined && protocolVersion >= FIRST_REVISION_WITHOUT_BATCHES) {
    return {
      status: 400,
      code: INVALID_REQUEST,
      message: `JSON-RPC batches are not part of MCP ${protocolVersion} (removed in ${FIRST_REVISION_WITHOUT_BATCHES}): send one message per request.`,
    }
  }
  const max = Math.min(maxToolCalls, TRANSPORT_MAX_BATCH)
  if (batch.length > max) {
    return {
      status: 400,
      code: INVALID_REQUEST,
      message: `Limit exceeded: a JSON-RPC batch may hold at most ${max} messages (MAX_TOOL_CALLS, at most ${TRANSPORT_MAX_BATCH}); this one has ${batch.length}.`,
    }
  }
  return null
}

/**
 * The messages of a body that cost one request each against the tenant's budget: every
 * message of a batch that may run, else 1.
 */
function costOf(c: Context<AppEnv>, json: unknown, maxToolCalls: number): number {
  const batch = batchOf(json)
  if (batch === null || batch.length === 0) return 1
  if (batchRefusal(json, c.req.header('mcp-protocol-version'), maxToolCalls)) return 1
  return batch.length
}

/**
 * Runs the tenant's rate limiter once per message of a batch, so a batch of N calls spends N
 * requests of the budget, and is refused whole (429) when they do not fit.
 * @param limiter - the tenant's rate-limit middleware
 * @param maxToolCalls - `MAX_TOOL_CALLS`, which caps a batch
 */
export function perMessageRateLimit(
  limiter: MiddlewareHandler<AppEnv>,
  maxToolCalls: number
): MiddlewareHandler<AppEnv> {
  const nothing = async () => {}
  return async function mcpRateLimit(c, next) {
    const cost = c.req.method === 'POST' ? costOf(c, (await mcpBody(c)).json, maxToolCalls) : 1
    for (let spent = 1; spent < cost; spent++) {
      const refused = await limiter(c, nothing)
      if (refused) return refused
    }
    return limiter(c, next)
  }
}
