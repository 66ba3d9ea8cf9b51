/**
 * `agent-todos observe`: a fake agent command (test/agents/fake-agent.mjs printing canned lines,
 * among them the real captures of test/fixtures/ingest) against a recorder in place of the service.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { runCli } from '../../src/cli/main.js'
import { detectAgent, streamFlagProblem, type ObserveOptions } from '../../src/cli/observe.js'
import { startRecorder, type Recorder } from '../agents/recorder.js'
import { ingested, runObserve, sink } from '../hostile/observe-support.js'
import { freePort } from './server-process.js'

const FAKE = fileURLToPath(new URL('../agents/fake-agent.mjs', import.meta.url))
const fixture = (path: string) =>
  fileURLToPath(new URL(`../fixtures/ingest/${path}`, import.meta.url))
const CODEX_STREAM = fixture('codex/real-plan.ndjson')
const CLAUDE_STREAM = fixture('claude-agent-sdk/real-todowrite.ndjson')
const GEMINI_STREAM = fixture('gemini-cli/real-todos.ndjson')
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean)
const fake = (...args: string[]) => [process.execPath, FAKE, ...args]

/** `observe` of the fake agent (printing nothing unless told) against `recorder`. */
const run = (recorder: { url: string }, options: Partial<ObserveOptions>) =>
  runObserve(recorder, { key: 'observe-test-key', command: fake(), ...options })

describe('observe: which agent a command runs', () => {
  it('reads the program, a path to it, a launcher argument or a package name', () => {
    assert.equal(detectAgent(['codex', 'exec', '--json', 'hi']), 'codex')
    assert.equal(detectAgent(['/opt/bin/claude', '-p', 'x']), 'claude')
    assert.equal(
      detectAgent(['node', '/x/@google/gemini-cli/bundle/gemini.js', '-p', 'x']),
      'gemini'
    )
    assert.equal(detectAgent(['npx', '-y', '@openai/codex@0.171.0', 'exec']), 'codex')
    assert.equal(detectAgent(['npx', '@anthropic-ai/claude-code', '-p', 'x']), 'claude')
    assert.equal(detectAgent(['C:\\tools\\codex.exe', 'exec']), 'codex')
    assert.equal(detectAgent(['python', 'agent.py', 'say claude']), null)
    assert.equal(detectAgent(['make', 'test']), null)
  })

  it('says what a command lacks for a stream observe can read', () => {
    assert.equal(streamFlagProblem('codex', ['codex', 'exec', '--json', 'x']), null)
    assert.match(streamFlagProblem('codex', ['codex', 'exec', 'x'])!, /exec --json/)
    assert.equal(
      streamFlagProblem('claude', [
        'claude',
        '-p',
        'x',
        '--output-format',
        'stream-json',
        '--verbose',
      ]),
      null
    )
    assert.match(
      streamFlagProblem('claude', ['claude', '-p', 'x', '--output-format', 'stream-json'])!,
      /--verbose/
    )
    assert.equal(streamFlagProblem('gemini', ['gemini', '-p', 'x', '-o', 'stream-json']), null)
    assert.match(streamFlagProblem('gemini', ['gemini', '-p', 'x'])!, /stream-json/)
  })
})

describe('observe: a fake agent against a recorder', () => {
  let recorder: Recorder
  before(async () => {
    recorder = await startRecorder()
  })
  after(() => recorder.close())
  const fresh = () => {
    recorder.requests.length = 0
    recorder.respond(() => undefined)
  }

  it('passes stdout and stderr through byte for byte and exits with the command code', async () => {
    fresh()
    const raw = JSON.stringify(
      'plain text line\r\n{"type":"turn.started"}\r\nno newline at the end'
    )
    const { code, out, err } = await run(recorder, {
      command: fake(
        '--file',
        CODEX_STREAM,
        '--raw',
        raw,
        '--stderr',
        'progress on stderr\n',
        '--exit',
        '3'
      ),
    })
    assert.equal(code, 3)
    assert.equal(out.text(), readFileSync(CODEX_STREAM, 'utf8') + JSON.parse(raw))
    // the command's stderr as it came, between observe's own notes
    assert.deepEqual(err.text().split('\n').slice(0, 2), [
      'agent-todos observe: codex needs exec --json; its output may not be observable',
      'progress on stderr',
    ])
    assert.match(err.text(), /2 stdout line\(s\) were not JSON and were not sent/)
    // every JSON line went to the route in order (the \r stripped), nothing else did
    assert.deepEqual(ingested(recorder), [...lines(CODEX_STREAM), '{"type":"turn.started"}'])
  })

  it('streams a Codex run to /v1/ingest/codex naming the thread, then ends the session', async () => {
    fresh()
    const { code } = await run(recorder, {
      command: fake('--file', CODEX_STREAM, '--pace', '5'),
    })
    assert.equal(code, 0)
    const thread = JSON.parse(lines(CODEX_STREAM)[0]).thread_id as string
    const posts = recorder.posts('/v1/ingest/')
    assert.ok(posts.length >= 2, 'paced lines come in more than one batch')
    for (const post of posts) {
      const url = new URL(post.path, 'http://x')
      assert.equal(url.pathname, '/v1/ingest/codex')
      assert.equal(url.searchParams.get('session_id'), `codex:${thread}`)
      assert.equal(post.headers['content-type'], 'application/x-ndjson')
      assert.equal(post.headers.authorization, 'Bearer observe-test-key')
      assert.ok(post.body.endsWith('\n'))
    }
    assert.deepEqual(ingested(recorder), lines(CODEX_STREAM))
    const id = encodeURIComponent(`codex:${thread}`)
    const tail = recorder.requests.slice(-2).map((r) => `${r.method} ${r.path}`)
    assert.deepEqual(tail, [`GET /v1/sessions/${id}`, `POST /v1/sessions/${id}/end`])
    assert.deepEqual(JSON.parse(recorder.requests.at(-1)!.body), {
      outcome: 'completed',
      detail: 'exit code 0',
    })
  })

  it('sends a Claude stream as it is (each frame names its session) and ends claude:<id>', async () => {
    fresh()
    const { code } = await run(recorder, {
      agent: 'claude',
      command: fake('--file', CLAUDE_STREAM, '--exit', '1'),
    })
    assert.equal(code, 1)
    const session = JSON.parse(lines(CLAUDE_STREAM)[0]).session_id as string
    for (const post of recorder.posts('/v1/ingest/'))
      assert.equal(post.path, '/v1/ingest/claude-agent-sdk')
    assert.deepEqual(ingested(recorder), lines(CLAUDE_STREAM))
    const end = recorder.requests.at(-1)!
    assert.equal(end.path, `/v1/sessions/${encodeURIComponent(`claude:${session}`)}/end`)
    assert.deepEqual(JSON.parse(end.body), { outcome: 'error', detail: 'exit code 1' })
  })

  it('streams Gemini to /v1/ingest/gemini-cli naming the init session', async () => {
    fresh()
    const { code } = await run(recorder, {
      agent: 'gemini',
      command: fake('--file', GEMINI_STREAM),
    })
    assert.equal(code, 0)
    const session = JSON.parse(lines(GEMINI_STREAM)[0]).session_id as string
    for (const post of recorder.posts('/v1/ingest/'))
      assert.equal(
        post.path,
        `/v1/ingest/gemini-cli?session_id=${encodeURIComponent(`gemini:${session}`)}`
      )
    assert.deepEqual(ingested(recorder), lines(GEMINI_STREAM))
  })

  it('leaves a session its own stream ended as it is', async () => {
    fresh()
    recorder.respond((req) =>
      req.method === 'GET'
        ? {
            status: 200,
            body: {
              session_id: 'x',
              ended: { outcome: 'max_turns', detail: null, at: 'now', unfinished: ['2'] },
            },
          }
        : undefined
    )
    const { code } = await run(recorder, {
      agent: 'claude',
      command: fake('--file', CLAUDE_STREAM, '--exit', '1'),
    })
    assert.equal(code, 1)
    assert.equal(recorder.requests.at(-1)!.method, 'GET')
    assert.equal(recorder.posts('/v1/sessions/').length, 0)
  })

  it('names the session given by --session-id on every batch and ends that one', async () => {
    fresh()
    await run(recorder, {
      agent: 'claude',
      sessionId: 'ci-job-42',
      command: fake('--file', CLAUDE_STREAM),
    })
    for (const post of recorder.posts('/v1/ingest/'))
      assert.equal(post.path, '/v1/ingest/claude-agent-sdk?session_id=ci-job-42')
    assert.equal(recorder.requests.at(-1)!.path, '/v1/sessions/ci-job-42/end')
  })

  it('never ends a session fed by rounds that --session-id named', async () => {
    fresh()
    recorder.respond((req) =>
      req.method === 'GET'
        ? { status: 200, body: { session_id: 'loop-1', source: 'rounds', ended: null } }
        : req.path.startsWith('/v1/ingest/')
          ? {
              status: 409,
              body: { type: 'https://agent-todos.dev/problems/not-observed', status: 409 },
            }
          : undefined
    )
    const { code, err } = await run(recorder, {
      agent: 'claude',
      sessionId: 'loop-1',
      command: fake('--file', CLAUDE_STREAM),
    })
    assert.equal(code, 0)
    assert.equal(recorder.posts('/v1/sessions/').length, 0)
    assert.match(err.text(), /session loop-1 is fed by rounds, not by this agent; not ending it/)
  })

  it('retries a failing service with backoff and delivers every line once, in order', async () => {
    fresh()
    let failures = 0
    recorder.respond((req) => {
      if (req.path.startsWith('/v1/ingest/') && failures < 3) {
        failures++
        return { status: failures === 2 ? 429 : 503, body: { detail: 'busy' } }
      }
      return undefined
    })
    const { code, err } = await run(recorder, { command: fake('--file', CODEX_STREAM) })
    assert.equal(code, 0)
    assert.equal(failures, 3)
    const posts = recorder.posts('/v1/ingest/')
    // the three refused attempts carried the same first batch again
    assert.equal(posts[0].body, posts[1].body)
    assert.equal(posts[1].body, posts[2].body)
    assert.equal(posts[2].body, posts[3].body)
    assert.deepEqual(
      posts.slice(3).flatMap((r) => r.body.split('\n').filter(Boolean)),
      lines(CODEX_STREAM)
    )
    assert.match(err.text(), /retrying in the background/)
    assert.equal(recorder.requests.at(-1)!.path.endsWith('/end'), true)
  })

  it('never holds the agent output back while the service is slow', async () => {
    // a service that answers its first ingest request only a second after it came
    let firstReplyAt = Infinity
    let gate: Promise<void> | null = null
    const { createServer } = await import('node:http')
    const reply = async (req: IncomingMessage, res: ServerResponse) => {
      for await (const _ of req) void _
      gate ??= new Promise<void>((resolve) => setTimeout(resolve, 1000))
      await gate
      if (firstReplyAt === Infinity) firstReplyAt = Date.now()
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    }
    const server = createServer((req, res) => void reply(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as { port: number }).port
    try {
      const { code, out } = await run(
        { url: `http://127.0.0.1:${port}` },
        { command: fake('--file', CODEX_STREAM, '--pace', '10') }
      )
      assert.equal(code, 0)
      assert.equal(out.text(), readFileSync(CODEX_STREAM, 'utf8'))
      assert.ok(
        out.chunks.at(-1)!.at < firstReplyAt,
        'the last output line was written before the service answered anything'
      )
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })

  it('drops only the line the service refuses as malformed, and still ends the session', async () => {
    fresh()
    recorder.respond((req) =>
      req.path.startsWith('/v1/ingest/') && req.body.includes('"poison"')
        ? { status: 400, body: { detail: 'not a codex exec --json line' } }
        : undefined
    )
    const poisoned = lines(CODEX_STREAM)
    poisoned.splice(3, 0, '{"type":"poison"}')
    const raw = JSON.stringify(poisoned.join('\n') + '\n')
    const { code, err } = await run(recorder, { command: fake('--raw', raw) })
    assert.equal(code, 0)
    const accepted = recorder
      .posts('/v1/ingest/')
      .filter((r) => !r.body.includes('poison'))
      .flatMap((r) => r.body.split('\n').filter(Boolean))
    assert.deepEqual(accepted, lines(CODEX_STREAM))
    assert.match(err.text(), /refused 1 line\(s\) \(400: not a codex exec --json line\)/)
    assert.equal(recorder.requests.at(-1)!.path.endsWith('/end'), true)
  })

  it('gives up after the flush timeout when the service is down, with the command code', async () => {
    const port = await freePort()
    const started = Date.now()
    const { code, out, err } = await run(
      { url: `http://127.0.0.1:${port}` },
      { command: fake('--file', CODEX_STREAM, '--exit', '5'), flushTimeoutMs: 300 }
    )
    assert.equal(code, 5)
    assert.equal(out.text(), readFileSync(CODEX_STREAM, 'utf8'))
    assert.ok(Date.now() - started < 5000, 'bounded by the flush timeout')
    assert.match(err.text(), /cannot deliver to http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/)
    assert.match(err.text(), /could not be delivered before the flush timeout/)
    assert.match(err.text(), /not every line reached the service; leaving session codex:/)
  })

  it('stops forwarding when the key is refused, and the command runs on', async () => {
    fresh()
    recorder.respond((req) =>
      req.path.startsWith('/v1/ingest/') ? { status: 401, body: { detail: 'bad key' } } : undefined
    )
    const { code, out, err } = await run(recorder, {
      command: fake('--file', CODEX_STREAM, '--pace', '5'),
    })
    assert.equal(code, 0)
    assert.equal(out.text(), readFileSync(CODEX_STREAM, 'utf8'))
    assert.equal(recorder.posts('/v1/ingest/').length, 1)
    assert.match(err.text(), /refused the stream \(401: bad key\); the command runs on unobserved/)
    assert.equal(recorder.posts('/v1/sessions/').length, 0)
  })

  it('a Ctrl-C: the command gets SIGTERM after the grace period and the session ends cancelled', async () => {
    fresh()
    const controller = new AbortController()
    // Ctrl-C once the command is running and its stream reached the service
    recorder.respond((req) => {
      if (req.path.startsWith('/v1/ingest/')) controller.abort()
      return undefined
    })
    const { code } = await run(recorder, {
      command: fake('--file', CODEX_STREAM, '--hang'),
      signal: controller.signal,
    })
    assert.equal(code, 128 + 15)
    assert.deepEqual(JSON.parse(recorder.requests.at(-1)!.body), {
      outcome: 'cancelled',
      detail: 'signal SIGTERM',
    })
  })

  it('a command that cannot start exits 127 and sends nothing', async () => {
    fresh()
    const { code, err } = await run(recorder, { command: ['/nonexistent/codex', 'exec', '--json'] })
    assert.equal(code, 127)
    assert.match(err.text(), /cannot run '\/nonexistent\/codex': ENOENT/)
    assert.equal(recorder.requests.length, 0)
  })
})

describe('observe: the command line', () => {
  const cli = async (argv: string[], env: Record<string, string> = {}) => {
    const out = sink()
    const err = sink()
    const code = await runCli(argv, { stdout: out.stream, stderr: err.stream, env })
    return { code, out: out.text(), err: err.text() }
  }

  it('--help prints the observe usage', async () => {
    const { code, out } = await cli(['observe', '--help'])
    assert.equal(code, 0)
    assert.match(out, /Usage: agent-todos observe \[options\] -- <command…>/)
    assert.match((await cli(['--help'])).out, /agent-todos observe \[options\] -- <command…>/)
  })

  it('usage errors exit 2 with a clear line', async () => {
    assert.deepEqual(
      [(await cli(['observe'])).code, (await cli(['observe'])).err.split('\n')[0]],
      [2, 'agent-todos: observe needs a command']
    )
    const badId = await cli(['observe', '--session-id', 'a/b', '--', 'codex', 'exec', '--json'])
    assert.equal(badId.code, 2)
    assert.match(badId.err, /--session-id must match/)
    const unknown = await cli(['observe', '--', 'make', 'test'])
    assert.equal(unknown.code, 2)
    assert.match(
      unknown.err,
      /cannot tell which agent 'make' runs; pass --agent claude\|codex\|gemini/
    )
    const badAgent = await cli(['observe', '--agent', 'cursor', '--', 'x'])
    assert.equal(badAgent.code, 2)
    const badUrl = await cli(['observe', '--url', 'ftp://x', '--', 'codex', 'exec', '--json'])
    assert.equal(badUrl.code, 2)
    assert.match(badUrl.err, /--url must be an http\(s\) URL/)
    const badOption = await cli(['observe', '--once', '--', 'codex'])
    assert.equal(badOption.code, 2)
  })

  it('runs the command through runCli with the env URL and key, options before the command', async () => {
    const recorder = await startRecorder()
    try {
      const { code, out } = await cli(
        ['observe', '--agent', 'codex', ...fake('--file', CODEX_STREAM, '--exit', '4')],
        { AGENT_TODOS_URL: recorder.url, AGENT_TODOS_KEY: 'env-key' }
      )
      assert.equal(code, 4)
      assert.equal(out, readFileSync(CODEX_STREAM, 'utf8'))
      assert.deepEqual(ingested(recorder), lines(CODEX_STREAM))
      assert.equal(recorder.posts('/v1/ingest/')[0].headers.authorization, 'Bearer env-key')
      // global options before `observe` count too
      recorder.requests.length = 0
      const again = await cli([
        '--url',
        recorder.url,
        'observe',
        '--agent=codex',
        '--',
        ...fake('--file', CODEX_STREAM),
      ])
      assert.equal(again.code, 0)
      assert.deepEqual(ingested(recorder), lines(CODEX_STREAM))
    } finally {
      await recorder.close()
    }
  })
})
