// Process plumbing shared by bench/run.mjs and bench/scale.mjs: pinned processes, /proc sampling,
// the service and ceiling servers, Redis key cleanup; and the in-process app of a compiled build.
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import { createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import pino from 'pino'
import { POOL } from './workload.mjs'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const BENCH = path.join(ROOT, 'bench')
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379'

const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true'])
    return os.cpus().length >= 2
  } catch {
    return false
  }
})()
export const SERVER_CPU = process.env.BENCH_SERVER_CPU || '0'
export const CLIENT_CPU = process.env.BENCH_CLIENT_CPU || '1'
export const PINNED = hasTaskset

/** Spawns `node args` pinned to `cpu` when taskset is there. */
export function spawnPinned(cpu, args, options) {
  return hasTaskset
    ? spawn('taskset', ['-c', cpu, process.execPath, ...args], options)
    : spawn(process.execPath, args, options)
}

export async function freePort() {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address()
  server.close()
  await once(server, 'close')
  return port
}

/** user+system clock ticks of a process. */
export function procTicks(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}

/** Resident set size of a process, MB. */
export function rssMB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) / 1024 : NaN
  } catch {
    return NaN
  }
}

function coreTicks() {
  const cores = {}
  for (const line of fs.readFileSync('/proc/stat', 'utf8').split('\n')) {
    const m = /^cpu(\d+) (.*)$/.exec(line)
    if (!m) continue
    const [u, n, s, idle, io, irq, sirq, steal] = m[2].trim().split(/\s+/).map(Number)
    cores[m[1]] = { busy: u + n + s + irq + sirq, idle: idle + io, steal }
  }
  return cores
}

/** A CPU snapshot of the given processes and every core. */
export function snapshot(pids) {
  return {
    t: process.hrtime.bigint(),
    procs: pids.map((pid) => (pid ? procTicks(pid) : 0)),
    cores: coreTicks(),
  }
}

/** CPU % (of one core) of each process and busy % of each core between two snapshots. */
export function cpuBetween(a, b) {
  const seconds = Number(b.t - a.t) / 1e9
  const HZ = 100
  const procs = a.procs.map((ticks, i) => (100 * (b.procs[i] - ticks)) / HZ / seconds)
  const cores = {}
  for (const core of Object.keys(b.cores)) {
    const d = (k) => b.cores[core][k] - a.cores[core][k]
    const total = d('busy') + d('idle') + d('steal')
    cores[core] = Math.round((100 * d('busy')) / total)
  }
  return { seconds, procs, cores }
}

/** Runs the canary on a core, ms. */
export function canary(cpu) {
  return new Promise((resolve) => {
    const child = spawnPinned(cpu, [path.join(BENCH, 'canary.mjs')], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.on('exit', () => resolve(parseFloat(out)))
  })
}

async function waitListening(url, child, wantReady) {
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode})`)
    try {
      const res = await fetch(url)
      await res.arrayBuffer()
      if (!wantReady || res.status === 200) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`server at ${url} did not become ready`)
}

/**
 * Starts a target on core 0: `ceiling` (bare node:http), `floor` (hono + zod-openapi with the
 * schemas of `dist`), `floor+<store>` (the floor with a bare durable write per hook delivery,
 * `<store>` one of bench/floor-store.mjs) or `service` (the service from `dist`, compiled) with
 * `env`.
 * @returns {{ pid, port, stop(): Promise<void>, output(): string }}
 */
export async function startTarget(kind, env = {}, extraArgs = [], dist = path.join(ROOT, 'dist')) {
  const port = await freePort()
  let child
  let logFile
  let output = ''
  const [reference, withStore] = kind.split('+')
  if (reference === 'ceiling' || reference === 'floor') {
    const args = [path.join(BENCH, `${reference}.mjs`), String(port), dist]
    child = spawnPinned(SERVER_CPU, withStore ? [...args, withStore] : args, {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
  } else {
    // request logs go to a file, as a container's stdout goes to a collector; stderr is kept
    logFile = path.join(os.tmpdir(), `agent-todos-bench-${process.pid}-${port}.log`)
    const fd = fs.openSync(logFile, 'w')
    child = spawnPinned(SERVER_CPU, [...extraArgs, path.join(dist, 'server.js')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '0',
        ...env,
      },
      stdio: ['ignore', fd, 'pipe'],
    })
    fs.closeSync(fd)
  }
  child.stderr.on('data', (d) => (output += d))
  const exited = once(child, 'exit')
  try {
    await waitListening(
      `http://127.0.0.1:${port}${kind === 'service' ? '/readyz' : '/'}`,
      child,
      kind === 'service'
    )
  } catch (error) {
    child.kill('SIGKILL')
    throw new Error(
      `${error.message}: ${output}${logFile ? fs.readFileSync(logFile, 'utf8') : ''}`,
      {
        cause: error,
      }
    )
  }
  return {
    pid: child.pid,
    port,
    output: () => output,
    logBytes: () => (logFile ? fs.statSync(logFile).size : 0),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
        await exited
        clearTimeout(timer)
      }
      if (logFile) fs.rmSync(logFile, { force: true })
    },
  }
}

/**
 * A run of a `runClient` plan that gives each session of a pool `calls` calls of a scenario, in
 * turn, before the measured runs (sessions past the cap of applied ids and the history limit).
 */
export function fillRun(scenario, prefix, calls, name = 'fill') {
  return { name, scenario, prefix, sequential: true, cycle: true, amount: calls * POOL, warmup: 0 }
}

/**
 * Runs bench/client.mjs on core 1 with a plan; calls `onMarker(kind, name)` at MEASURE_START and
 * MEASURE_END, returns the result lines.
 */
export async function runClient(plan, onMarker = () => {}) {
  const child = spawnPinned(CLIENT_CPU, [path.join(BENCH, 'client.mjs'), JSON.stringify(plan)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => {
    const text = String(d)
    for (const line of text.split('\n')) {
      const m = /^MEASURE_(START|END) (.*)$/.exec(line)
      if (m) onMarker(m[1], m[2])
      else if (line.trim()) err += line + '\n'
    }
  })
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`client failed (${code}): ${err}`)
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}

/** pid of the Redis server (for its CPU), or 0. */
export async function redisInfo() {
  const { Redis } = await import('ioredis')
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
  })
  try {
    await redis.connect()
    const info = await redis.info('server')
    const pid = Number(/process_id:(\d+)/.exec(info)?.[1] ?? 0)
    const version = /redis_version:([^\r\n]+)/.exec(info)?.[1] ?? '?'
    return { pid, version }
  } catch {
    return null
  } finally {
    redis.disconnect()
  }
}

/** Deletes every key under a benchmark's own prefix (never anyone else's). */
export async function dropRedisPrefix(prefix) {
  const { Redis } = await import('ioredis')
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 })
  let count = 0
  try {
    const stream = redis.scanStream({ match: `${prefix}:*`, count: 1000 })
    for await (const keys of stream) {
      if (keys.length) {
        count += keys.length
        await redis.unlink(...keys)
      }
    }
  } finally {
    redis.disconnect()
  }
  return count
}

/** A figure for the tables: an integer with thousands separators, or – when not measured. */
export const f0 = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '–')
/** A figure for the tables with two decimals, or – when not measured. */
export const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '–')

export const median = (values) => {
  const s = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b)
  if (!s.length) return NaN
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** Replaces the text between `<!-- name:begin -->` and `<!-- name:end -->` in a file. */
export function writeSection(file, name, text) {
  const begin = `<!-- ${name}:begin -->`
  const end = `<!-- ${name}:end -->`
  let doc = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''
  const block = `${begin}\n${text.trim()}\n${end}`
  const i = doc.indexOf(begin)
  const j = doc.indexOf(end)
  if (i >= 0 && j > i) doc = doc.slice(0, i) + block + doc.slice(j + end.length)
  else doc = (doc ? doc.trimEnd() + '\n\n' : '') + block + '\n'
  fs.writeFileSync(file, doc)
}

/**
 * A module of a compiled build.
 * @param dist - the build's dist/ folder
 * @param file - the module's path in it (`http/app.js`)
 */
export const loadBuilt = (dist, file) => import(pathToFileURL(path.join(dist, file)).href)

/**
 * The app of a compiled build, answering `app.request()` in this process: the service's defaults
 * (open access, 1 MiB bodies, 50 versions of history, idempotent replies kept 24 h, a silent
 * logger), `deps` giving the store and the clock and changing anything else.
 * @param dist - the build's dist/ folder
 * @param deps - the store, `now`, and any other AppDeps
 */
export async function builtApp(dist, deps) {
  const { createApp } = await loadBuilt(dist, 'http/app.js')
  const { parseAuthKeys } = await loadBuilt(dist, 'http/auth.js')
  return createApp({
    logger: pino({ level: 'silent' }),
    keys: parseAuthKeys(undefined),
    bodyLimitBytes: 1024 * 1024,
    staleAfterMs: 900_000,
    historyLimit: 50,
    idempotencyTtlMs: 24 * 3600 * 1000,
    isDraining: () => false,
    openapiDocument: null,
    sseHeartbeatMs: 15_000,
    ...deps,
  })
}

/** The PostgreSQL server of the benches (its `postgres` database creates the others). */
export const POSTGRES_URL =
  process.env.POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres'

/**
 * Creates an empty database on the bench's PostgreSQL and returns its URL, or null when none
 * answers. `dropPgDatabase` removes it.
 * @param name - the database's name (letters, digits and _)
 */
export async function freshPgDatabase(name) {
  const { default: pg } = await import('pg')
  const admin = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 })
  try {
    await admin.connect()
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.query(`CREATE DATABASE ${name}`)
  } catch {
    return null
  } finally {
    await admin.end().catch(() => undefined)
  }
  const url = new URL(POSTGRES_URL)
  url.pathname = `/${name}`
  return url.toString()
}

/** Drops a database made by `freshPgDatabase`. */
export async function dropPgDatabase(name) {
  const { default: pg } = await import('pg')
  const admin = new pg.Client({ connectionString: POSTGRES_URL })
  await admin.connect()
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  } finally {
    await admin.end()
  }
}
