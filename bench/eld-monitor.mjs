// Preloaded into the server (`BENCH_NODE_ARGS='--import ./bench/eld-monitor.mjs'` with ELD_OUT
// set): times the event loop's delay (perf_hooks, 1 ms resolution). Each SIGUSR2 (the bench sends
// one when its measured phase starts and one when it ends) appends what was recorded since the one
// before to ELD_OUT as one JSON line { ms, n, p50, p90, p99, p999, max } (delays in ms) and starts
// again. Less sensitive than a probe's latency to a loaded host: it times the server's own turns.
import fs from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'

const out = process.env.ELD_OUT
if (out) {
  const histogram = monitorEventLoopDelay({ resolution: 1 })
  histogram.enable()
  let since = performance.now()
  process.on('SIGUSR2', () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100
    fs.appendFileSync(
      out,
      JSON.stringify({
        ms: Math.round(performance.now() - since),
        n: histogram.count,
        p50: ms(histogram.percentile(50)),
        p90: ms(histogram.percentile(90)),
        p99: ms(histogram.percentile(99)),
        p999: ms(histogram.percentile(99.9)),
        max: ms(histogram.max),
      }) + '\n'
    )
    histogram.reset()
    since = performance.now()
  })
}
