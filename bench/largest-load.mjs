// Reads, lists and pages through the largest session at once, in its own process (autocannon).
// Usage: node bench/largest-load.mjs <port> <seconds>; prints one JSON line of answered requests.
import autocannon from 'autocannon'

const [port, seconds] = process.argv.slice(2).map(Number)
const run = (path) =>
  new Promise((resolve, reject) =>
    autocannon(
      { url: `http://127.0.0.1:${port}${path}`, connections: 2, duration: seconds, timeout: 20 },
      (error, result) => (error ? reject(error) : resolve(result.requests.total))
    )
  )
const [reads, history, lists] = await Promise.all([
  run('/v1/sessions/big'),
  run('/v1/sessions/big/history'),
  run('/v1/sessions?limit=200'),
])
console.log(JSON.stringify({ reads, history, lists }))
