/**
 * A TCP proxy in front of a Redis for fault tests: it forwards every byte, and can hold back the
 * replies of chosen commands (a Redis that executes a write at once but answers late, beyond the
 * client's command timeout). It reads just enough RESP2/RESP3 to tell one command and one reply
 * from the next; push frames (pub/sub) pass without taking a command's place.
 */
import { createServer, connect, type Server, type Socket } from 'node:net'
import { once } from 'node:events'

/** A command as the client sent it: its arguments, as latin1 text. */
export type ProxiedCommand = string[]

export interface SlowReplyProxy {
  port: number
  url: string
  /**
   * From now on, the replies of commands that `match` are held back `delayMs` (and the replies
   * behind them on the same connection wait too, as they would on a slow server).
   */
  delayReplies(match: (command: ProxiedCommand) => boolean, delayMs: number): void
  /** Replies flow at once again. */
  reset(): void
  /** How many replies were held back so far. */
  delayed(): number
  close(): Promise<void>
}

/** The end (exclusive) of the RESP frame starting at `at`, or -1 while it is incomplete. */
function frameEnd(buffer: Buffer, at: number): number {
  if (at >= buffer.length) return -1
  const type = String.fromCharCode(buffer[at])
  const eol = buffer.indexOf('\r\n', at)
  if (eol < 0) return -1
  const head = buffer.toString('latin1', at + 1, eol)
  let next = eol + 2
  switch (type) {
    case '+':
    case '-':
    case ':':
    case '_':
    case ',':
    case '#':
    case '(':
      return next
    case '$':
    case '!':
    case '=': {
      const length = Number(head)
      if (length < 0) return next
      const end = next + length + 2
      return end <= buffer.length ? end : -1
    }
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      const count = Number(head)
      if (count < 0) return next
      const items = type === '%' || type === '|' ? count * 2 : count
      for (let i = 0; i < items; i++) {
        next = frameEnd(buffer, next)
        if (next < 0) return -1
      }
      // an attribute precedes the reply it describes
      return type === '|' ? frameEnd(buffer, next) : next
    }
    default:
      throw new Error(`unexpected RESP type ${JSON.stringify(type)}`)
  }
}

/** The bulk strings of a command frame (`*n` of `$len` items). */
function commandArgs(frame: Buffer): ProxiedCommand {
  const args: string[] = []
  let at = frame.indexOf('\r\n') + 2
  while (at < frame.length) {
    const eol = frame.indexOf('\r\n', at)
    const length = Number(frame.toString('latin1', at + 1, eol))
    args.push(frame.toString('latin1', eol + 2, eol + 2 + length))
    at = eol + 2 + length + 2
  }
  return args
}

/**
 * Starts the proxy on a loopback port in front of `target`.
 * @param target - host and port of the Redis
 */
export async function startSlowReplyProxy(target: {
  host: string
  port: number
}): Promise<SlowReplyProxy> {
  let match: ((command: ProxiedCommand) => boolean) | null = null
  let delayMs = 0
  let delayedCount = 0
  const sockets = new Set<Socket>()

  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host)
    sockets.add(client).add(upstream)
    /** Per command sent and not answered yet: how long its reply is held back. */
    const pending: number[] = []
    let requests = Buffer.alloc(0)
    let replies = Buffer.alloc(0)
    let out = Promise.resolve()

    client.on('data', (chunk: Buffer) => {
      requests = Buffer.concat([requests, chunk])
      for (;;) {
        const end = frameEnd(requests, 0)
        if (end < 0) break
        const command = commandArgs(requests.subarray(0, end))
        requests = requests.subarray(end)
        pending.push(match?.(command) ? delayMs : 0)
      }
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      replies = Buffer.concat([replies, chunk])
      for (;;) {
        const end = frameEnd(replies, 0)
        if (end < 0) break
        const frame = Buffer.from(replies.subarray(0, end))
        replies = replies.subarray(end)
        const wait = frame[0] === 0x3e /* '>' push */ ? 0 : (pending.shift() ?? 0)
        if (wait > 0) delayedCount++
        out = out
          .then(() => (wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : undefined))
          .then(() => {
            if (!client.destroyed) client.write(frame)
          })
      }
    })
    const closeBoth = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('close', closeBoth)
    upstream.on('close', closeBoth)
    client.on('error', closeBoth)
    upstream.on('error', closeBoth)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    delayReplies(next, ms) {
      match = next
      delayMs = ms
    },
    reset() {
      match = null
    },
    delayed: () => delayedCount,
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
