/**
 * Redis for tests: reachability gates (fail under CI=true, skip with a reason elsewhere), unique key
 * prefixes, key cleanup, and throwaway redis-server processes (standalone or a 3-master Cluster)
 * on loopback ports.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { Cluster, Redis } from 'ioredis'
import {
  createRedisStore,
  type RedisSessionStore,
  type RedisStoreOptions,
} from '../src/store/redis/index.js'

/** The shared Redis of the test run (`.ci/run` starts it when down). */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

const IN_CI = process.env.CI === 'true'

/** A key prefix no other run uses. */
export function uniquePrefix(tag: string): string {
  return `test-${tag}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
}

/** Null when Redis at the URL answers PING, else why not. */
export async function probeRedis(url: string = TEST_REDIS_URL): Promise<string | null> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    commandTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  })
  let cause: Error | undefined
  client.on('error', (error: Error) => (cause ??= error))
  try {
    await client.connect()
    await client.ping()
    return null
  } catch (error) {
    return (cause ?? (error instanceof Error ? error : new Error(String(error)))).message
  } finally {
    client.disconnect()
  }
}

/** Null when redis-server and redis-cli can run, else why not. */
export function probeRedisBinaries(): string | null {
  for (const binary of ['redis-server', 'redis-cli']) {
    const result = spawnSync(binary, ['--version'], { encoding: 'utf8' })
    if (result.error || result.status !== 0)
      return `${binary} is not runnable: ${result.error?.message ?? result.stderr}`
  }
  return null
}

/**
 * What to do when a test file's Redis prerequisite is missing: under CI=true register a failing
 * test (a missing Redis must never pass silently); elsewhere register a skipped one and say why.
 * @param what - the suite that cannot run
 * @param reason - why
 */
export function missingRedis(what: string, reason: string): void {
  if (IN_CI) {
    it(`${what}: Redis is required under CI`, () => {
      assert.fail(`${what} needs Redis, which is unavailable: ${reason}`)
    })
    return
  }
  console.log(`skipping ${what}: ${reason}`)
  it(what, { skip: `Redis unavailable: ${reason}` }, () => undefined)
}

/** Deletes every key under a prefix (SCAN, test-only), on each master of a cluster. */
export async function dropKeys(target: { url?: string; clusterNodes?: string[] }, prefix: string) {
  const scanOne = async (client: Redis) => {
    let cursor = '0'
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000)
      cursor = next
      for (const key of keys) await client.del(key)
    } while (cursor !== '0')
  }
  if (target.clusterNodes) {
    const cluster = new Cluster(
      target.clusterNodes.map((node) => {
        const [host, port] = node.split(':')
        return { host, port: Number(port) }
      })
    )
    cluster.on('error', () => undefined)
    try {
      await Promise.all(cluster.nodes('master').map(scanOne))
    } finally {
      cluster.disconnect()
    }
    return
  }
  const client = new Redis(target.url ?? TEST_REDIS_URL, { maxRetriesPerRequest: 1 })
  client.on('error', () => undefined)
  try {
    await scanOne(client)
  } finally {
    client.disconnect()
  }
}

async function portIsFree(port: number): Promise<boolean> {
  const server = createServer()
  return new Promise((resolve) => {
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/**
 * A loopback port for redis-server that is free, below the ephemeral range, and whose cluster bus
 * port (+10000) is free too.
 */
export async function freeRedisPort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20000 + Math.floor(Math.random() * 20000)
    if ((await portIsFree(port)) && (await portIsFree(port + 10000))) return port
  }
  throw new Error('no free port pair for redis-server')
}

export interface RedisServerProcess {
  port: number
  url: string
  child: ChildProcess
  /** SIGTERM (or the given signal), then wait for exit. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

/**
 * Starts `redis-server` in the foreground on a loopback port and waits until it answers.
 * @param port - the port (never 0: that turns TCP off)
 * @param dir - working directory for its files
 * @param extra - more arguments, e.g. cluster options
 */
export async function startRedisServer(
  port: number,
  dir: string,
  extra: string[] = []
): Promise<RedisServerProcess> {
  let output = ''
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--dir',
      dir,
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] }
  )
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const exited = once(child, 'exit')
  const url = `redis://127.0.0.1:${port}`
  const proc: RedisServerProcess = {
    port,
    url,
    child,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill(signal)
      await exited
    },
  }
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`redis-server exited (${child.exitCode}):\n${output}`)
    if ((await probeRedis(url)) === null) return proc
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await proc.stop('SIGKILL')
  throw new Error(`redis-server on ${port} did not answer:\n${output}`)
}

export interface RedisClusterProcess {
  nodes: string[]
  stop(): Promise<void>
}

/** Starts three masters on loopback ports, joins them into a Cluster and waits until it is ok. */
export async function startRedisCluster(): Promise<RedisClusterProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-todos-cluster-'))
  const servers: RedisServerProcess[] = []
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()))
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    for (let i = 0; i < 3; i++) {
      const port = await freeRedisPort()
      servers.push(
        await startRedisServer(port, dir, [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '2000',
        ])
      )
    }
    const nodes = servers.map((server) => `127.0.0.1:${server.port}`)
    const create = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes'],
      { encoding: 'utf8', timeout: 30_000 }
    )
    if (create.status !== 0)
      throw new Error(`redis-cli --cluster create failed:\n${create.stdout}${create.stderr}`)
    const deadline = Date.now() + 20_000
    for (;;) {
      const states = servers.map(
        (server) =>
          spawnSync('redis-cli', ['-p', String(server.port), 'cluster', 'info'], {
            encoding: 'utf8',
          }).stdout
      )
      if (states.every((info) => /cluster_state:ok/.test(info))) break
      if (Date.now() > deadline) throw new Error(`cluster not ok:\n${states.join('\n')}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return { nodes, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** A redis-server of one test's own, in a temporary folder that `stop` removes. */
export interface PrivateRedis extends RedisServerProcess {
  dir: string
}

/**
 * Starts a redis-server that only this test uses (for what a test does to the server itself:
 * fill its memory, delay its replies, kill it) on a free port, in a temporary folder.
 * @param tag - names the folder
 * @param extra - more redis-server arguments (`--maxmemory-policy noeviction`, …)
 */
export async function startPrivateRedis(tag: string, extra: string[] = []): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), `agent-todos-${tag}-`))
  try {
    const server = await startRedisServer(await freeRedisPort(), dir, extra)
    return {
      ...server,
      dir,
      async stop(signal) {
        await server.stop(signal)
        rmSync(dir, { recursive: true, force: true })
      },
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
}

/** A logger that keeps the test output clean (the store logs reconnects it is made to see). */
export const SILENT_LOGGER = { info: () => undefined, warn: () => undefined }

/**
 * Opens a Redis store as the tests use it: sessions kept an hour, 50 versions of history, a
 * silent logger, the wall clock; `options` name the server and change any of those.
 * @param options - `url` or `clusterNodes`, and any other store option
 */
export function openTestRedisStore(
  options: Partial<RedisStoreOptions>
): Promise<RedisSessionStore> {
  return createRedisStore({
    ttlMs: 3_600_000,
    historyLimit: 50,
    now: Date.now,
    logger: SILENT_LOGGER,
    ...options,
  })
}
