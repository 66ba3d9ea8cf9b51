/**
 * @module store/postgres/listen
 * Every instance's ear on the fleet: one connection of its own that LISTENs on the change
 * channel and hands other instances' changes to the local feed (this instance's own changes are
 * emitted when its write commits, so they are skipped here). A lost connection is opened again
 * with a growing pause; changes made meanwhile are not replayed (streams resume by version).
 */
import pg from 'pg'
import type { ChangeEvent, StoreLogger } from '../types.js'
import { CHANGE_CHANNEL } from './sql.js'

export interface ListenOptions {
  url: string
  /** This instance's id, carried by its own notifications. */
  instance: string
  emit: (event: ChangeEvent) => void
  logger?: StoreLogger
}

const MAX_PAUSE_MS = 5_000

/** Starts listening; `close()` stops it for good. */
export function listenForChanges(options: ListenOptions): { close(): Promise<void> } {
  let client: pg.Client | undefined
  let closed = false
  let pause = 100
  let timer: NodeJS.Timeout | undefined

  const onNotification = (message: pg.Notification) => {
    if (message.channel !== CHANGE_CHANNEL || !message.payload) return
    try {
      const { instance, ...event } = JSON.parse(message.payload) as ChangeEvent & {
        instance: string
      }
      if (instance !== options.instance) options.emit(event)
    } catch {
      // not ours: another program on the same channel
    }
  }

  const retry = () => {
    if (closed || timer) return
    timer = setTimeout(() => {
      timer = undefined
      void connect()
    }, pause)
    timer.unref()
    pause = Math.min(pause * 2, MAX_PAUSE_MS)
  }

  const connect = async () => {
    const next = new pg.Client({
      connectionString: options.url,
      application_name: 'agent-todos-listen',
    })
    next.on('notification', onNotification)
    next.on('error', (error) => {
      options.logger?.warn({ err: error }, 'PostgreSQL change listener lost its connection')
      if (client === next) client = undefined
      void next.end().catch(() => undefined)
      retry()
    })
    try {
      await next.connect()
      await next.query(`LISTEN ${CHANGE_CHANNEL}`)
      if (closed) {
        await next.end()
        return
      }
      client = next
      pause = 100
    } catch (error) {
      options.logger?.warn({ err: error }, 'PostgreSQL change listener cannot connect')
      void next.end().catch(() => undefined)
      retry()
    }
  }
  void connect()

  return {
    async close() {
      closed = true
      if (timer) clearTimeout(timer)
      await client?.end().catch(() => undefined)
    },
  }
}
