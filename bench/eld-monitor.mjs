// Preloaded into the server (`BENCH_NODE_ARGS='--import ./bench/eld-monitor.mjs'` with ELD_OUT
// set): times the event loop. Each SIGUSR2 (the bench sends one when its measured phase starts and
// one when it ends) appends what was recorded since the one before to ELD_OUT as one JSON line and
// starts again:
//   { ms, n, p50, p90, p99, p999, max,   the event loop's delay (perf_hooks, 1 ms resolution)
//     cpu: { n, p50, p99, p999, max } }  the process's CPU between two ticks of a 1 ms timer
// (delays and CPU in ms). The delay is wall time, so it grows when other processes take the core;
// the CPU between ticks is what the turns in between cost the server (its threads, GC included),
// whatever else runs: the length of the longest synchronous spans on a loaded host.
import fs from 'node:fs'
import { createHistogram, monitorEventLoopDelay } from 'node:perf_hooks'

const out = process.env.ELD_OUT
if (out) {
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  const cpu = createHistogram()
  let last = process.cpuUsage()
  setInterval(() => {
    const now = process.cpuUsage()
    cpu.record(Math.max(1, now.user - last.user + now.system - last.system))
    last = now
  }, 1).unref()
  let since = performance.now()
  const ms = (ns) => Math.round(ns / 1e4) / 100
  const cpuMs = (us) => Math.round(us / 10) / 100
  process.on('SIGUSR2', () => {
    fs.appendFileSync(
      out,
      JSON.stringify({
        ms: Math.round(performance.now() - since),
        n: delay.count,
        p50: ms(delay.percentile(50)),
        p90: ms(delay.percentile(90)),
        p99: ms(delay.percentile(99)),
        p999: ms(delay.percentile(99.9)),
        max: ms(delay.max),
        cpu: {
          n: cpu.count,
          p50: cpuMs(cpu.percentile(50)),
          p99: cpuMs(cpu.percentile(99)),
          p999: cpuMs(cpu.percentile(99.9)),
          max: cpuMs(cpu.max),
        },
      }) + '\n'
    )
    delay.reset()
    cpu.reset()
    since = performance.now()
  })
}
