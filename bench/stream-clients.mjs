// Holds many event streams open against the service, in its own process (bench/streams.mjs
// pins it beside the load generator). Usage: node bench/stream-clients.mjs '<plan JSON>'
//   plan: { port, count, path ('/v1/events' or a session's events), mode: 'read' | 'stuck' }
//   read: every stream is read as it arrives (bytes counted, not parsed); a stream the server
//         closes or drops is reopened (with Last-Event-ID when it had one)
//   stuck: every stream reads its first chunk, then stops reading (the socket fills); with
//          reopenSeconds, each client opens a new stream that often (stuck again), as a broken
//          client that retries would
// Prints `READY` on stderr once every stream had its first chunk; on SIGTERM prints one JSON line
// { opened, reconnects, bytes, chunks, refused } and exits.
import http from 'node:http'

const plan = JSON.parse(process.argv[2])
const stats = { opened: 0, reconnects: 0, bytes: 0, chunks: 0, refused: 0 }
let ready = 0
let announced = false
let stopping = false
const sockets = new Set()

function open(index, lastEventId, again) {
  if (stopping) return
  const headers = { Accept: 'text/event-stream' }
  if (lastEventId) headers['Last-Event-ID'] = lastEventId
  const req = http.get(
    { host: '127.0.0.1', port: plan.port, path: plan.path, headers, agent: false },
    (res) => {
      if (res.statusCode !== 200) {
        stats.refused++
        res.resume()
        res.on('end', () => setTimeout(() => open(index, lastEventId, true), 1000))
        return
      }
      stats.opened++
      if (again) stats.reconnects++
      let first = true
      let last = lastEventId
      res.on('data', (chunk) => {
        stats.bytes += chunk.length
        stats.chunks++
        if (plan.mode === 'read' && plan.path !== '/v1/events') {
          // the last id in the chunk, cheaply: resume from it after a drop
          const at = chunk.lastIndexOf('\nid: ')
          if (at >= 0) last = chunk.toString('latin1', at + 5, chunk.indexOf(10, at + 5))
        }
        if (first) {
          first = false
          if (!again && ++ready === plan.count && !announced) {
            announced = true
            process.stderr.write('READY\n')
          }
          if (plan.mode === 'stuck') res.pause()
        }
      })
      let reopened = false
      const reopen = () => {
        if (reopened) return
        reopened = true
        setTimeout(() => open(index, last, true), 100)
      }
      res.on('end', reopen)
      res.on('error', () => undefined)
      res.socket.on('close', () => {
        sockets.delete(res.socket)
        reopen()
      })
      sockets.add(res.socket)
    }
  )
  req.on('error', () => setTimeout(() => open(index, lastEventId, true), 1000))
}

for (let i = 0; i < plan.count; i++) open(i, null, false)
// a stuck client never reads again, so it never sees the server drop it: it comes back every
// `reopenSeconds` with a new stream (and gets stuck again), leaving the old socket as it is
if (plan.mode === 'stuck' && plan.reopenSeconds) {
  setInterval(() => {
    for (let i = 0; i < plan.count; i++) open(i, null, true)
  }, plan.reopenSeconds * 1000)
}
// paused sockets do not keep the event loop alive
setInterval(() => {}, 1000)

process.on('SIGTERM', () => {
  stopping = true
  process.stdout.write(JSON.stringify(stats) + '\n', () => {
    for (const socket of sockets) socket.destroy()
    process.exit(0)
  })
})
