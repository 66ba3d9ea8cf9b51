/**
 * @module http/metrics
 * Prometheus metrics: request metrics by route pattern (never session ids) and domain metrics.
 */
import { prometheus } from '@hono/prometheus'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { DialectConflictError, type RoundOutcome } from '../dialects/round.js'
import type { SessionStore, Updater } from '../store/types.js'
import { ServiceError } from '../service/errors.js'
import { SESSION_STATES } from '../core/session.js'

export interface Metrics {
  registry: Registry
  middleware: ReturnType<typeof prometheus>
  rounds: Counter<'dialect'>
  todoCalls: Counter<'dialect'>
  validationErrors: Counter<'dialect'>
  reminders: Counter<'dialect'>
  droppedItems: Counter<'dialect'>
  operatorEdits: Counter<'dialect'>
  ingestEvents: Counter<'source' | 'kind'>
  storeLatency: Histogram<'op'>
  storeErrors: Counter<'op'>
  casConflicts: Counter
  sseClients: Gauge<'stream'>
  sseRefused: Counter<'stream'>
  sseEvicted: Counter<'stream'>
  webhookDeliveries: Counter<'type' | 'result'>
  decisions: Counter<'outcome' | 'channel'>
  decisionSeconds: Histogram<'channel'>
}

/**
 * Creates a registry with every metric of the service.
 * @param options - `defaultMetrics`: also collect process metrics (the server does; tests don't)
 */
export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry()
  const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
    new Counter<L>({ name: `agent_todos_${name}`, help, labelNames, registers: [registry] })
  return {
    registry,
    middleware: prometheus({ registry, collectDefaultMetrics: options.defaultMetrics ?? false }),
    rounds: counter('rounds_total', 'Rounds processed', ['dialect']),
    todoCalls: counter('todo_calls_total', "Calls of a dialect's todo tools", ['dialect']),
    validationErrors: counter('validation_errors_total', 'Todo calls answered with is_error', [
      'dialect',
    ]),
    reminders: counter('reminders_total', 'Round replies that carried the reminder', ['dialect']),
    droppedItems: counter('dropped_items_total', 'Unfinished items a whole-list write removed', [
      'dialect',
    ]),
    operatorEdits: counter('operator_edits_total', "Operators' list edits (PUT todos)", [
      'dialect',
    ]),
    ingestEvents: counter(
      'ingest_events_total',
      'Events of observed agents received, by source and kind (tool_call, tool_result, session_start, session_end, waiting, activity, ignored)',
      ['source', 'kind']
    ),
    storeLatency: new Histogram({
      name: 'agent_todos_store_seconds',
      help: 'Session store call latency',
      labelNames: ['op'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    storeErrors: counter('store_errors_total', 'Session store calls that failed', ['op']),
    casConflicts: new Counter({
      name: 'agent_todos_cas_conflicts_total',
      help: 'Compare-and-set conflicts on a session version (retried by the store)',
      registers: [registry],
    }),
    sseClients: new Gauge({
      name: 'agent_todos_sse_clients',
      help: 'Open Server-Sent Events streams',
      labelNames: ['stream'],
      registers: [registry],
    }),
    sseRefused: counter(
      'sse_refused_total',
      'Event streams refused: the tenant was at MAX_STREAMS_PER_TENANT',
      ['stream']
    ),
    sseEvicted: counter(
      'sse_evicted_total',
      'Event streams dropped: the client left more than MAX_STREAM_BACKLOG_BYTES unread',
      ['stream']
    ),
    webhookDeliveries: counter(
      'webhook_deliveries_total',
      'Webhook delivery attempts by event type and result (delivered, retry, failed; dropped: a wait that ended before its delay)',
      ['type', 'result']
    ),
    decisions: counter(
      'decisions_total',
      "Requests answered by a person (allowed, denied, answered) by where the answer came from (api, dashboard, slack), and the ones that ended otherwise (answered_elsewhere: at the agent's own prompt; expired)",
      ['outcome', 'channel']
    ),
    decisionSeconds: new Histogram({
      name: 'agent_todos_decision_seconds',
      help: 'Time from a request to its answer by a person, by where the answer came from',
      labelNames: ['channel'],
      buckets: [1, 5, 15, 30, 60, 120, 300, 600],
      registers: [registry],
    }),
  }
}

/** How old the sessions-by-state gauge may be (SPEC: at most 15 s). */
const STATES_MAX_AGE_MS = 10_000

/**
 * Adds `agent_todos_sessions{state}`: sessions by state across the store (every tenant's),
 * counted from the briefs at most every 10 s and one count at a time (a scrape between reads
 * the last count; scrapes during a count share it).
 * @param metrics - the registry's metrics
 * @param count - counts the store's sessions by state (`AlertStore.countStates`)
 * @param now - the clock
 */
export function watchSessionStates(
  metrics: Metrics,
  count: () => Promise<Record<string, number>>,
  now: () => number
): void {
  let countedAt = Number.NEGATIVE_INFINITY
  let last: Record<string, number> = {}
  // scrapes that meet a count under way wait for it: one count at a time, whatever the scrapers
  let counting: Promise<void> | null = null
  const recount = async () => {
    try {
      last = await count()
      countedAt = now()
    } catch {
      // a store that cannot be read keeps the last count
    } finally {
      counting = null
    }
  }
  new Gauge({
    name: 'agent_todos_sessions',
    help: 'Sessions by state (active, waiting, done, stale, ended) across the store, at most 15 s old',
    labelNames: ['state'],
    registers: [metrics.registry],
    async collect() {
      if (now() - countedAt >= STATES_MAX_AGE_MS) await (counting ??= recount())
      for (const state of SESSION_STATES) this.set({ state }, last[state] ?? 0)
    },
  })
}

/**
 * Counts what a round did.
 * @param metrics - the registry's metrics
 * @param outcome - the round
 */
export function countRound(metrics: Metrics, outcome: RoundOutcome): void {
  const labels = { dialect: outcome.session.dialect }
  metrics.rounds.inc(labels)
  if (outcome.results.length) metrics.todoCalls.inc(labels, outcome.results.length)
  const errors = outcome.results.filter((result) => result.is_error).length
  if (errors) metrics.validationErrors.inc(labels, errors)
  if (outcome.reminder) metrics.reminders.inc(labels)
  if (outcome.dropped.length) metrics.droppedItems.inc(labels, outcome.dropped.length)
}

const TIMED_OPS = ['get', 'update', 'delete', 'list', 'history'] as const

/**
 * Wraps a store so that each call's latency and failure is measured.
 * @param store - the store
 * @param metrics - where to record
 */
export function instrumentStore(store: SessionStore, metrics: Metrics): SessionStore {
  const timed: Partial<SessionStore> = {}
  // what an updater threw is its verdict on the request (412, 422, an unknown MCP tool), not a
  // store fault: remembered as it passes, whatever its class
  const verdicts = new WeakSet<object>()
  const judged =
    (updater: Updater<unknown>): Updater<unknown> =>
    (current, context) => {
      try {
        return updater(current, context)
      } catch (error) {
        if (typeof error === 'object' && error !== null) verdicts.add(error)
        throw error
      }
    }
  for (const op of TIMED_OPS) {
    const original = store[op].bind(store) as (...args: unknown[]) => Promise<unknown>
    ;(timed as Record<string, unknown>)[op] = async (...args: unknown[]) => {
      const end = metrics.storeLatency.startTimer({ op })
      if (op === 'update') args[1] = judged(args[1] as Updater<unknown>)
      try {
        return await original(...args)
      } catch (error) {
        const verdict =
          (typeof error === 'object' && error !== null && verdicts.has(error)) ||
          error instanceof ServiceError ||
          error instanceof DialectConflictError
        if (!verdict) metrics.storeErrors.inc({ op })
        throw error
      } finally {
        end()
      }
    }
  }
  return Object.assign(Object.create(store), timed) as SessionStore
}
