// Probes GET /livez every 10 ms for a while, in its own process; prints one JSON line
// { n, p50, p99, max } (ms). Usage: node bench/livez-probe.mjs <port> <seconds>
import http from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'

const [port, seconds] = process.argv.slice(2).map(Number)
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const latencies = []
const stopAt = Date.now() + seconds * 1000
while (Date.now() < stopAt) {
  const t = performance.now()
  await new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/livez', agent }, (res) => {
        res.resume()
        res.on('end', resolve)
      })
      .on('error', reject)
  })
  latencies.push(performance.now() - t)
  await sleep(10)
}
agent.destroy()
latencies.sort((a, b) => a - b)
const pct = (p) =>
  latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]
console.log(
  JSON.stringify({ n: latencies.length, p50: pct(50), p99: pct(99), max: latencies.at(-1) })
)
