/**
 * @module service/deliver-otlp
 * Delivering an OTLP export (`POST /v1/otlp/v1/logs|traces`, docs/otel.md): the request decoded
 * and read whole before anything is applied (an undecodable one is a 400 and changes nothing),
 * then each agent's events delivered as its hooks' would be (`deliverObserved`, one delivery per
 * agent in the export). What cannot be applied is counted for the export response's
 * `partialSuccess` instead of failing the export: a todo record without its session or input, and
 * the records of an agent whose sessions refuse them (fed by rounds, past a cap). A store that is
 * down or a spent write budget fail the request, so the exporter retries it whole (applied calls
 * are recognised by their ids).
 */
import type { OriginHints } from '../core/origin.js'
import { OTLP_AGENTS } from '../agents/otlp.js'
import { IngestFormatError, type ObservedEvent } from '../ingest/events.js'
import { parseOtlp, type OtlpParsed, type OtlpSignal } from '../ingest/otlp/index.js'
import { QuotaExceededError } from '../store/types.js'
import { deliverObserved, type DeliverDeps, type ObservedDelivery } from './deliver-observed.js'
import { ServiceError } from './errors.js'

/** One OTLP export to deliver. */
export interface OtlpDelivery extends Pick<
  ObservedDelivery,
  'tenant' | 'signal' | 'charge' | 'onParsed'
> {
  /** The export's signal (the route's). */
  kind: Exclude<OtlpSignal, 'metrics'>
  /** Protobuf bytes (decompressed), or OTLP/JSON parsed. */
  body: { kind: 'protobuf'; bytes: Uint8Array } | { kind: 'json'; value: unknown }
  /** What the request says of its origin, strongest first (the key's user, `X-Agent-*`). */
  origin?: readonly OriginHints[]
}

/** What an export did, for its response. */
export interface OtlpOutcome {
  /** Records in the export. */
  records: number
  /** Records that could not be applied. */
  rejected: number
  /** Why, when any was rejected ('' otherwise). */
  errorMessage: string
  applied: number
  ignored: number
}

/** Refusals of one agent's sessions: its records are rejected, the export goes on. */
const REFUSALS: ReadonlySet<string> = new Set([
  'not-observed',
  'too-many-sessions',
  'invalid-session-id',
  'session-unknown',
])

const todoRecords = (events: readonly ObservedEvent[]) =>
  events.filter((event) => event.kind === 'tool_result').length

function decoded(request: OtlpDelivery): OtlpParsed {
  try {
    return parseOtlp(request.kind, request.body)
  } catch (error) {
    if (!(error instanceof IngestFormatError)) throw error
    throw new ServiceError(
      'invalid-ingest-body',
      `Not an OTLP ${request.kind} export: ${error.message}`,
      {
        errors: [{ pointer: error.pointer, detail: error.message }],
      }
    )
  }
}

/**
 * Delivers an OTLP export's records to the sessions they name.
 * @param deps - store, clock, caps, the stale window
 * @param request - the export, its tenant, origin and write budget
 * @throws ServiceError `invalid-ingest-body` (nothing applied), `delivery-aborted`, and the store's
 */
export async function deliverOtlp(deps: DeliverDeps, request: OtlpDelivery): Promise<OtlpOutcome> {
  const parsed = decoded(request)
  const outcome: OtlpOutcome = {
    records: parsed.records,
    rejected: 0,
    errorMessage: '',
    applied: 0,
    ignored: 0,
  }
  const reasons = new Set<string>()
  let deliveries = 0
  for (const [family, reading] of parsed.readings) {
    outcome.rejected += reading.rejected
    for (const reason of reading.reasons) reasons.add(reason)
    if (reading.events.length === 0) continue
    // the request paid for one delivery; each further agent's is one write more
    if (deliveries++ > 0) await request.charge(1, true)
    try {
      const delivered = await deliverObserved(deps, {
        tenant: request.tenant,
        agent: OTLP_AGENTS[family],
        body: { kind: 'json', value: null },
        parse: () => ({ events: reading.events }),
        origin: request.origin,
        signal: request.signal,
        charge: request.charge,
        onParsed: request.onParsed,
      })
      outcome.applied += delivered.applied
      outcome.ignored += delivered.ignored
    } catch (error) {
      const refused =
        (error instanceof ServiceError && REFUSALS.has(error.code)) ||
        error instanceof QuotaExceededError
      if (!refused) throw error
      outcome.rejected += todoRecords(reading.events)
      reasons.add(`${family}: ${(error as Error).message}`)
    }
  }
  outcome.errorMessage = [...reasons].join('; ')
  return outcome
}
