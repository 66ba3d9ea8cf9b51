/**
 * @module http/routes/otlp
 * `POST /v1/otlp/v1/logs`, `/v1/otlp/v1/traces` and `/v1/otlp/v1/metrics`: OTLP/HTTP 1.x, so an
 * agent's exporter needs only `OTEL_EXPORTER_OTLP_ENDPOINT=<service>/v1/otlp` and the key as
 * `OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer <key>` (docs/otel.md). Bodies are
 * `application/x-protobuf` or `application/json`, optionally `Content-Encoding: gzip`
 * (decompressed up to `BODY_LIMIT_BYTES`, never past it: a bigger one is a 413 however small it
 * came). The reply is the export response in the request's encoding; metrics are accepted and
 * ignored. An adapter: the body decoded to bytes or JSON here, read and delivered by
 * service/deliver-otlp.
 */
import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { jsonTooDeep, MAX_BODY_DEPTH } from '../../core/limits.js'
import { encodeResponse, type OtlpSignal } from '../../ingest/otlp/index.js'
import { deliverOtlp, type OtlpOutcome } from '../../service/deliver-otlp.js'
import { limitsOf, type AppDeps } from '../deps.js'
import type { AppEnv } from '../context.js'
import type { Metrics } from '../metrics.js'
import { originHintsOf } from '../origin-headers.js'
import { problem, problemResponses } from '../problem.js'
import { operation, registerOperations } from '../operation.js'
import { requestHeader } from '../route-input.js'
import { chargeWrites } from '../write-charge.js'

const gunzipAsync = promisify(gunzip)

const PROTOBUF = 'application/x-protobuf'
const JSON_TYPE = 'application/json'

/** What each signal's export response counts as rejected. */
const REJECTED: Record<OtlpSignal, string> = {
  logs: 'rejectedLogRecords',
  traces: 'rejectedSpans',
  metrics: 'rejectedDataPoints',
}

const SUMMARIES: Record<OtlpSignal, string> = {
  logs: "An OTLP logs export (Claude Code's, Codex CLI's, Gemini CLI's events): their todo calls applied to `claude:<session.id>`, `codex:<conversation.id>`, `gemini:<session.id>`",
  traces:
    "An OTLP traces export (Claude Code's `claude_code.tool` spans of the beta tracer, Gemini CLI's `tool_call` spans): applied as the logs' records",
  metrics: 'An OTLP metrics export: accepted and ignored',
}

const OtlpPartialSuccess = z
  .object({
    rejectedLogRecords: z.number().int().optional(),
    rejectedSpans: z.number().int().optional(),
    rejectedDataPoints: z.number().int().optional(),
    errorMessage: z.string().optional(),
  })
  .openapi('OtlpPartialSuccess', {
    description:
      'Records that could not be applied (no session, no input, a refused session), and why',
  })

const OtlpExportResponse = z
  .object({ partialSuccess: OtlpPartialSuccess.optional() })
  .openapi('OtlpExportResponse', {
    description:
      'The export service response (`Export{Logs,Trace,Metrics}ServiceResponse`), protobuf for a protobuf request',
  })

const otlpRoute = (signal: OtlpSignal) =>
  createRoute({
    method: 'post',
    path: `/v1/otlp/v1/${signal}`,
    tags: ['otlp'],
    summary: SUMMARIES[signal],
    operationId: `exportOtlp${signal.charAt(0).toUpperCase()}${signal.slice(1)}`,
    request: {
      body: {
        required: true,
        description: 'An OTLP/HTTP export request, optionally `Content-Encoding: gzip`',
        content: {
          [PROTOBUF]: { schema: z.string().openapi({ format: 'binary' }) },
          [JSON_TYPE]: { schema: z.looseObject({}).openapi({ description: 'OTLP/JSON' }) },
        },
      },
    },
    responses: {
      200: {
        description: 'Accepted',
        content: {
          [JSON_TYPE]: { schema: OtlpExportResponse },
          [PROTOBUF]: { schema: z.string().openapi({ format: 'binary' }) },
        },
      },
      ...problemResponses(
        'invalid-ingest-body',
        'body-too-deep',
        'delivery-aborted',
        'unauthorized',
        'forbidden',
        'session-quota-exceeded',
        'body-too-large',
        'unsupported-media-type',
        'rate-limited',
        'store-unavailable',
        'contention'
      ),
    },
  })

/** A refusal answered as a problem before anything is read. */
class Refusal extends Error {
  constructor(readonly response: Response) {
    super('refused')
    this.name = 'Refusal'
  }
}

/**
 * The body's bytes, decompressed within the body limit.
 * @param c - the request's context
 * @param limit - BODY_LIMIT_BYTES: the decompressed size counts against it too
 */
async function bodyBytes(c: Context<AppEnv>, limit: number): Promise<Uint8Array> {
  const raw = new Uint8Array(await c.req.arrayBuffer())
  const encoding = (requestHeader(c, 'content-encoding') ?? 'identity').trim().toLowerCase()
  if (encoding === 'identity' || encoding === '') return raw
  if (encoding !== 'gzip' && encoding !== 'x-gzip') {
    throw new Refusal(
      problem(
        c,
        'unsupported-media-type',
        `Content-Encoding ${encoding.slice(0, 40)} is not accepted: send gzip or none.`
      )
    )
  }
  try {
    // zlib stops at the limit: a small body that inflates past it never allocates more
    return new Uint8Array(await gunzipAsync(raw, { maxOutputLength: limit }))
  } catch (error) {
    if (
      (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ||
      error instanceof RangeError
    ) {
      throw new Refusal(
        problem(c, 'body-too-large', `The request body exceeds ${limit} bytes once decompressed.`)
      )
    }
    throw new Refusal(
      problem(c, 'invalid-ingest-body', `The body is not gzip: ${(error as Error).message}`)
    )
  }
}

/** The body as OTLP/JSON, or a 400 problem. */
function jsonOf(c: Context<AppEnv>, bytes: Uint8Array): unknown {
  const text = new TextDecoder().decode(bytes)
  if (jsonTooDeep(text, MAX_BODY_DEPTH)) {
    throw new Refusal(
      problem(c, 'body-too-deep', `The body nests deeper than ${MAX_BODY_DEPTH} levels.`)
    )
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new Refusal(
      problem(c, 'invalid-ingest-body', `Not OTLP/JSON: ${(error as Error).message}`)
    )
  }
}

/**
 * The export response: empty when everything was taken, else `partialSuccess`.
 * @param signal - the route's signal
 * @param outcome - what the export did (none for metrics)
 */
function exportResponse(signal: OtlpSignal, outcome: OtlpOutcome | null): Record<string, unknown> {
  if (!outcome || outcome.rejected === 0) return {}
  return {
    partialSuccess: { [REJECTED[signal]]: outcome.rejected, errorMessage: outcome.errorMessage },
  }
}

/** Registers the OTLP/HTTP routes. */
export function registerOtlpRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps, metrics: Metrics) {
  const handle = (signal: OtlpSignal) => async (c: Context<AppEnv>) => {
    const media = requestHeader(c, 'content-type')?.split(';')[0].trim().toLowerCase()
    if (media !== PROTOBUF && media !== JSON_TYPE) {
      return problem(
        c,
        'unsupported-media-type',
        `${media ? `Content-Type ${media.slice(0, 80)}` : 'A body without a Content-Type'} is not OTLP/HTTP: send ${PROTOBUF} or ${JSON_TYPE}.`
      )
    }
    let outcome: OtlpOutcome | null = null
    try {
      const bytes = await bodyBytes(c, deps.bodyLimitBytes)
      if (signal !== 'metrics') {
        outcome = await deliverOtlp(
          {
            store: deps.store,
            now: () => deps.now(),
            limits: limitsOf(deps),
            staleAfterMs: deps.staleAfterMs,
          },
          {
            tenant: c.get('tenant'),
            kind: signal,
            body:
              media === PROTOBUF
                ? { kind: 'protobuf', bytes }
                : { kind: 'json', value: jsonOf(c, bytes) },
            origin: originHintsOf(c),
            signal: c.req.raw.signal,
            charge: async (units, refuse) => {
              const refused = await chargeWrites(c, units, refuse)
              if (refused) throw new Refusal(refused)
            },
            onParsed: (events) => {
              for (const event of events)
                metrics.ingestEvents.inc({ source: 'otlp', kind: event.kind })
            },
          }
        )
      }
    } catch (error) {
      if (error instanceof Refusal) return error.response
      throw error
    }
    const response = exportResponse(signal, outcome)
    if (media === JSON_TYPE) return c.json(response, 200)
    return c.body(new Uint8Array(encodeResponse(signal, response)), 200, {
      'Content-Type': PROTOBUF,
    })
  }
  // the handlers read their bodies themselves (a protobuf or gzip body has no zod schema)
  const signals = ['logs', 'traces', 'metrics'] as const
  registerOperations(
    app,
    undefined,
    signals.map((signal) =>
      operation(otlpRoute(signal), handle(signal) as never, { validatesInput: true })
    )
  )
}
