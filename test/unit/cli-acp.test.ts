/**
 * `agent-todos acp`, the stdio tap: every byte passes through both ways unchanged (binary, partial
 * and very long lines included), the JSON-RPC lines of both directions reach the service wrapped
 * and in order, the agent's exit code and signals come back, the key is not handed on, and a
 * service that is down loses messages (counted), never the editor's bytes.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough, Writable } from 'node:stream'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { acpTap, type AcpTapOptions } from '../../src/cli/acp.js'
import { freePort } from '../e2e/server-process.js'

/** An agent that echoes its stdin to its stdout byte for byte, and reports on stderr. */
const ECHO = `
process.stderr.write('key:' + (process.env.AGENT_TODOS_KEY ?? 'none') + '\\n')
process.stdin.pipe(process.stdout)
process.stdin.on('end', () => { process.exitCode = Number(process.env.EXIT_CODE ?? 0) })
`

/** A service stand-in that keeps what was posted. */
async function recorder(): Promise<{
  url: string
  bodies: string[]
  headers: IncomingHttpHeaders[]
  server: Server
}> {
  const bodies: string[] = []
  const headers: IncomingHttpHeaders[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'))
      headers.push(req.headers)
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    headers,
    server,
  }
}

/** A writable that keeps every byte. */
function sink() {
  const chunks: Buffer[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk)
      done()
    },
  })
  return { stream, bytes: () => Buffer.concat(chunks) }
}

async function tap(
  url: string,
  writes: Buffer[],
  extra: Partial<AcpTapOptions> = {},
  env: Record<string, string> = {}
) {
  const stdin = new PassThrough()
  const stdout = sink()
  const stderr = sink()
  const running = acpTap({
    url,
    key: 'secret-key',
    command: [process.execPath, '-e', ECHO],
    stdin,
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: { PATH: process.env.PATH ?? '', AGENT_TODOS_KEY: 'secret-key', ...env },
    tuning: { flushTimeoutMs: 2000, retryBaseMs: 10 },
    ...extra,
  })
  // the editor writes in pieces that cut lines (and UTF-8 characters) anywhere
  for (const chunk of writes) {
    stdin.write(chunk)
    await new Promise((resolve) => setImmediate(resolve))
  }
  stdin.end()
  const stats = await running
  return { stats, out: stdout.bytes(), err: stderr.bytes().toString('utf8') }
}

const message = (id: number, text: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', id, text } },
  })

/** The posted lines, parsed: `{dir, msg, connection, seq, …}` (the tap's exit line `{from: 'tap'}`). */
const posted = (bodies: string[]) =>
  bodies
    .join('')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line))

describe('agent-todos acp (the stdio tap)', () => {
  it('Should send who and where with every delivery, as observe does', async () => {
    const service = await recorder()
    const origin = { 'X-Agent-User': 'ada', 'X-Agent-Host': 'laptop-1', 'X-Agent-Repo': 'acme/api' }
    await tap(service.url, [Buffer.from(`${message(0, 'one')}\n`)], { originHeaders: origin })
    // by default: who runs the tap (the repository and branch of its directory, when it is one)
    await tap(service.url, [Buffer.from(`${message(1, 'two')}\n`)])
    service.server.close()
    assert.ok(service.headers.length >= 2)
    const given = service.headers.filter((headers) => headers['x-agent-user'] === 'ada')
    assert.ok(given.length > 0)
    for (const headers of given) {
      assert.equal(headers['x-agent-host'], 'laptop-1')
      assert.equal(headers['x-agent-repo'], 'acme/api')
    }
    const found = service.headers.filter((headers) => headers['x-agent-user'] !== 'ada')
    assert.ok(found.length > 0)
    for (const headers of found) assert.equal(typeof headers['x-agent-host'], 'string')
  })

  it('Should pass every byte through unchanged and tee both directions’ JSON lines in order', async () => {
    const service = await recorder()
    const big = message(2, 'x'.repeat(900 * 1024))
    // longer than the service takes: passed through, not sent
    const huge = message(9, 'z'.repeat(2 * 1024 * 1024))
    const input = Buffer.concat([
      Buffer.from(`${message(0, 'héllo ✓')}\r\n`),
      Buffer.from([0, 255, 254, 10]), // binary garbage, a line of its own
      Buffer.from('not json at all\n'),
      Buffer.from(`${message(1, 'two')}\n${big}\n${huge}\n`),
      Buffer.from(message(3, 'no newline at the end')),
    ])
    // cut at every 7th byte for the first part (inside the ✓), then in large pieces
    const writes: Buffer[] = []
    for (let i = 0; i < 200; i += 7) writes.push(input.subarray(i, Math.min(i + 7, 200)))
    for (let i = 200; i < input.length; i += 1 << 20) writes.push(input.subarray(i, i + (1 << 20)))
    const { stats, out, err } = await tap(service.url, writes, {}, { EXIT_CODE: '3' })
    service.server.close()
    assert.ok(out.equals(input), 'stdout is the agent’s bytes, unchanged')
    assert.equal(stats.exitCode, 3)
    assert.match(err, /^key:none$/m)
    const lines = posted(service.bodies)
    const client = lines
      .filter((line) => line.dir === 'client->agent')
      .map((line) => line.msg.params.update.id)
    const agent = lines
      .filter((line) => line.dir === 'agent->client')
      .map((line) => line.msg.params.update.id)
    assert.deepEqual(client, [0, 1, 2, 3])
    assert.deepEqual(agent, [0, 1, 2, 3])
    assert.equal(
      lines.find((line) => line.msg?.params?.update.id === 0).msg.params.update.text,
      'héllo ✓'
    )
    // one connection, every line numbered in the order the tap saw it, the session named
    assert.equal(new Set(lines.map((line) => line.connection)).size, 1)
    const seqs = lines.map((line) => line.seq)
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b)
    )
    assert.ok(lines.filter((line) => line.msg).every((line) => line.session === 's1'))
    // every message line says its direction, in the SPEC's form
    assert.ok(
      lines
        .filter((line) => line.from !== 'tap')
        .every(
          (line) => ['agent->client', 'client->agent'].includes(line.dir) && !('message' in line)
        )
    )
    // the tap's own last line: the agent exited
    assert.deepEqual(lines.at(-1).exit, { code: 3, signal: null })
    assert.equal(stats.skipped, 4)
  })

  it('Should hold lines until a session is known, and name a response’s session and request', async () => {
    const service = await recorder()
    const writes = [
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } },
      { jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 'sx', prompt: [] } },
      { jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } },
    ].map((value) => Buffer.from(`${JSON.stringify(value)}\n`))
    await tap(service.url, writes)
    service.server.close()
    const lines = posted(service.bodies)
    assert.equal(lines[0].msg.method, 'initialize')
    // the echo answers its own requests: the agent's copy of the result answers the client's prompt
    const answer = lines.find((line) => line.dir === 'agent->client' && line.msg?.result)
    assert.equal(answer.session, 'sx')
    assert.equal(answer.request, 'session/prompt')
  })

  it('Should never hold the editor when the service is down: messages dropped and counted', async () => {
    const url = `http://127.0.0.1:${await freePort()}`
    const input = Buffer.from(Array.from({ length: 50 }, (_, i) => `${message(i, 'y')}\n`).join(''))
    const { stats, out, err } = await tap(url, [input], {
      tuning: { flushTimeoutMs: 300, retryBaseMs: 10, maxAttempts: 2, maxQueueBytes: 4096 },
    })
    assert.ok(out.equals(input))
    assert.equal(stats.delivered, 0)
    assert.ok(stats.dropped > 0)
    assert.match(err, /did not reach the service/)
  })

  it('Should return 128 + n when a signal ends the agent, and 127 when it cannot start', async () => {
    const service = await recorder()
    const stdin = new PassThrough()
    const running = acpTap({
      url: service.url,
      command: [process.execPath, '-e', 'process.kill(process.pid, "SIGTERM")'],
      stdin,
      stdout: sink().stream,
      stderr: sink().stream,
    })
    assert.equal((await running).exitCode, 143)
    const missing = await acpTap({
      url: service.url,
      command: ['/nonexistent/agent-binary'],
      stdin: new PassThrough(),
      stdout: sink().stream,
      stderr: sink().stream,
    })
    assert.equal(missing.exitCode, 127)
    service.server.close()
  })

  it('Should forward SIGTERM to the agent and exit with its code (the CLI)', async () => {
    const service = await recorder()
    const agent = `
process.on('SIGTERM', () => { process.stdout.write('bye\\n'); process.exit(7) })
process.stdout.write('ready\\n')
setInterval(() => {}, 1000)
`
    const child = spawn(
      process.execPath,
      [
        '--import',
        import.meta.resolve('tsx'),
        fileURLToPath(new URL('../../src/cli.ts', import.meta.url)),
        'acp',
        '--url',
        service.url,
        '--',
        process.execPath,
        '-e',
        agent,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] }
    )
    let out = ''
    child.stdout.setEncoding('utf8')
    const ready = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: string) => {
        out += chunk
        if (out.includes('ready')) resolve()
      })
    )
    await ready
    child.kill('SIGTERM')
    const [code] = (await once(child, 'close')) as [number | null]
    service.server.close()
    assert.equal(code, 7)
    assert.equal(out, 'ready\nbye\n')
  })
})
