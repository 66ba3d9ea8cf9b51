/**
 * @module http/streams/hub
 * The per-process fan-out behind the event streams. One store subscription for the whole app;
 * one topic per tenant stream and per session stream that has subscribers. A topic gathers the
 * changes of a short window, reads each changed session once, serialises each event once, and
 * queues the same bytes (one chunk per window) on every subscriber's stream: the cost of a write
 * no longer grows with the number of viewers, and a viewer's socket sees one write per window,
 * not one per change. When a topic's writes pass its budget (`fanoutBytesPerSecond`), its
 * windows lengthen: many viewers of a tenant written to very fast get fresher data less often,
 * and the writers keep their throughput. It also pushes the one change that needs no write: an
 * unfinished session turning stale.
 */
import type { SessionKey } from '../../core/session.js'
import type { EventHubOptions } from './hub-options.js'
import { SessionTopic } from './session-topic.js'
import { SseStream } from './sse.js'
import { TenantTopic } from './tenant-topic.js'
import type { HubContext } from './topic.js'

/** Refused: the tenant has `cap` streams open on this instance. */
export class StreamCapError extends Error {
  constructor(readonly cap: number) {
    super(`the tenant has ${cap} event streams open on this instance`)
    this.name = 'StreamCapError'
  }
}

const keyOf = (key: SessionKey) => `${key.tenant}\u0000${key.sessionId}`

export interface EventHub {
  /**
   * Opens a tenant stream: a snapshot of the newest sessions, then a summary per change.
   * @param drop - closes the client's connection, for an eviction
   * @throws StreamCapError when the tenant is at its cap
   */
  openTenant(tenant: string, drop?: () => void): SseStream
  /**
   * Opens a session stream: a snapshot (or the versions after `lastEventId`), then a view per
   * version, and `delete` when the session goes.
   * @param drop - closes the client's connection, for an eviction
   * @throws StreamCapError when the tenant is at its cap
   */
  openSession(key: SessionKey, lastEventId: number | undefined, drop?: () => void): SseStream
  /** Open streams of a tenant on this instance. */
  openStreams(tenant: string): number
}

/**
 * Creates the hub of one app.
 * @param options - store, limits, clock, shutdown signal
 */
export function createEventHub(options: EventHubOptions): EventHub {
  const tenants = new Map<string, TenantTopic>()
  const sessions = new Map<string, SessionTopic>()
  const open = new Map<string, number>()
  const hub: HubContext = {
    options,
    flushMs: options.flushMs ?? 100,
    fanoutBytesPerSecond: options.fanoutBytesPerSecond ?? 64 * 1024 * 1024,
    staleCheckMs: Math.min(15_000, Math.max(250, Math.floor(options.staleAfterMs / 4))),
    staleBefore: () => options.now() - options.staleAfterMs,
  }

  let unsubscribe: (() => void) | null = null
  const listen = () => {
    unsubscribe ??= options.store.subscribe((event) => {
      tenants.get(event.tenant)?.onChange(event)
      sessions.get(keyOf({ tenant: event.tenant, sessionId: event.session_id }))?.onChange(event)
    })
  }
  const quiet = () => {
    if (tenants.size === 0 && sessions.size === 0 && unsubscribe) {
      unsubscribe()
      unsubscribe = null
    }
  }

  /** The topic of `key`, created on first use; an idle topic leaves the map (if still its own). */
  const topicOf = <K, T>(map: Map<K, T>, key: K, create: (idle: () => void) => T): T => {
    let topic = map.get(key)
    if (!topic) {
      const created = create(() => {
        if (map.get(key) === created) map.delete(key)
        quiet()
      })
      map.set(key, created)
      topic = created
    }
    return topic
  }

  // one listener for the app, whatever the number of streams
  options.shutdownSignal?.addEventListener(
    'abort',
    () => {
      for (const topic of [...tenants.values(), ...sessions.values()]) topic.closeAll()
    },
    { once: true }
  )

  const admit = (
    tenant: string,
    label: 'tenant' | 'session',
    onEnd: () => void,
    drop?: () => void
  ) => {
    const count = open.get(tenant) ?? 0
    const cap = options.maxStreamsPerTenant
    if (cap > 0 && count >= cap) {
      options.metrics.sseRefused.inc({ stream: label })
      throw new StreamCapError(cap)
    }
    open.set(tenant, count + 1)
    options.metrics.sseClients.inc({ stream: label })
    return new SseStream(
      options.maxBacklogBytes,
      (how) => {
        const left = (open.get(tenant) ?? 1) - 1
        if (left > 0) open.set(tenant, left)
        else open.delete(tenant)
        options.metrics.sseClients.dec({ stream: label })
        if (how === 'evicted') options.metrics.sseEvicted.inc({ stream: label })
        onEnd()
      },
      drop
    )
  }

  return {
    openTenant(tenant, drop) {
      listen()
      // admitted first: a stream past the cap creates no topic (it only ends once joined)
      const stream = admit(tenant, 'tenant', () => topic.remove(stream), drop)
      const topic = topicOf(tenants, tenant, (idle) => new TenantTopic(hub, tenant, idle))
      topic.join(stream)
      return stream
    },
    openSession(key, lastEventId, drop) {
      listen()
      const k = keyOf(key)
      const stream = admit(key.tenant, 'session', () => topic.remove(stream), drop)
      const topic = topicOf(sessions, k, (idle) => new SessionTopic(hub, key, idle))
      topic.join(stream, lastEventId)
      return stream
    },
    openStreams: (tenant) => open.get(tenant) ?? 0,
  }
}
