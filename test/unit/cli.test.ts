import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { serve } from '@hono/node-server'
import { runCli } from '../../src/cli/main.js'
import {
  fit,
  nestSubagents,
  progressBar,
  renderSessionFrame,
  renderTenantFrame,
  sanitize,
  type SessionSummary,
  type SessionView,
} from '../../src/cli/render.js'
import { LineSplitter } from '../../src/cli/lines.js'
import { readSse } from '../../src/cli/sse.js'
import { watch } from '../../src/cli/watch.js'
import { makeTestApp } from '../helpers.js'
import { fixtureJson, fixtureLines, ingest, postHooks, view } from '../ingest-support.js'

const NOW = Date.parse('2026-11-30T12:00:00Z')
const options = { width: 100, height: Infinity, color: false, now: NOW }
const progress = (completed: number, total: number, in_progress = 0) => ({
  total,
  completed,
  in_progress,
  pending: total - completed - in_progress,
  cancelled: 0,
  blocked: 0,
  percent: total ? Math.floor((100 * completed) / total) : 0,
})
const item = (
  id: string,
  content: string,
  status: SessionView['items'][number]['status'],
  active_form?: string
) => ({
  id,
  content,
  status,
  blocks: [],
  blocked_by: [],
  ...(active_form ? { active_form } : {}),
})
const summary = (id: string, fields: Partial<SessionSummary> = {}): SessionSummary => ({
  session_id: id,
  dialect: 's03',
  version: 1,
  state: 'active',
  progress: progress(1, 3, 1),
  current: item('2', 'Write code', 'in_progress', 'Writing code'),
  round: 1,
  reminder_due: false,
  ended: null,
  stale: false,
  source: 'rounds',
  parent: null,
  waiting: null,
  background: 0,
  todo_tools: null,
  items_known: true,
  origin: {
    user: null,
    host: null,
    cwd: null,
    repo: null,
    branch: null,
    agent: null,
    agent_version: null,
    model: null,
    user_verified: false,
  },
  labels: {},
  updated_at: new Date(NOW - 5000).toISOString(),
  ...fields,
})

function sink() {
  let text = ''
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk
      done()
    },
  })
  return { stream, text: () => text }
}

describe('cli render', () => {
  it('Should draw bars of the given width', () => {
    assert.equal(progressBar(0, 10), '░░░░░░░░░░')
    assert.equal(progressBar(50, 10), '█████░░░░░')
    assert.equal(progressBar(100, 4), '████')
  })

  it('Should neutralise terminal escape sequences in model text', () => {
    assert.equal(sanitize('ok\x1b[2J\x1b]0;pwned\x07done\nnext'), 'ok [2J ]0;pwned done next')
    assert.equal(fit('abcdef', 4), 'abc…')
  })

  it('Should remove bidi controls from model text, so a line reads as it is stored', () => {
    const bidi = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067']
    bidi.push('\u2068', '\u2069', '\u200e', '\u200f', '\u061c')
    for (const mark of bidi)
      assert.equal(sanitize(`rm -rf ${mark}/tmp/x${mark} done`), 'rm -rf /tmp/x done', mark)
    const view: SessionView = {
      ...summary('run-\u202e1', { current: item('1', '\u2067Pay\u2069 now', 'pending') }),
      items: [item('1', 'Pay \u202eorcim\u202c now', 'pending')],
      rendered: '',
      rounds_since_todo: 0,
      settings: {},
      observed: null,
      editable: true,
      created_at: new Date(NOW - 60_000).toISOString(),
    }
    const frame = renderSessionFrame(view, 'h', { width: 80, height: 40, color: false, now: NOW })
    assert.match(frame, /#1 Pay orcim now/)
    assert.doesNotMatch(frame, /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/)
  })

  it('Should tell working, stale, done and ended sessions apart in the tenant view', () => {
    const text = renderTenantFrame(
      [
        summary('run-working'),
        summary('run-stale', {
          state: 'stale',
          stale: true,
          updated_at: new Date(NOW - 60_000).toISOString(),
        }),
        summary('run-done', { state: 'done', progress: progress(2, 2), current: null }),
        summary('run-ended', {
          state: 'ended',
          ended: {
            outcome: 'max_turns',
            detail: null,
            at: new Date(NOW).toISOString(),
            unfinished: ['2'],
          },
        }),
        summary('run-refreshed-stale', {
          state: 'stale',
          updated_at: new Date(NOW - 90_000).toISOString(),
        }),
      ],
      'header',
      options
    )
    assert.match(text, /^working\s+run-working\s+█{7}░{13}\s+33%\s+1\/3\s+Writing code$/m)
    assert.match(text, /^stale\s+run-stale /m)
    assert.match(text, /^stale\s+run-refreshed-stale /m)
    assert.match(text, /^done\s+run-done\s+█{20}\s+100%\s+2\/2\s+\(all done\)$/m)
    assert.match(text, /^ended at max turns\s+run-ended /m)
    assert.match(text, /5 sessions: 1 working, 2 stale, 1 done, 1 ended/)
  })

  it('Should list every item of a session with its mark', () => {
    const view: SessionView = {
      ...summary('run-1', { reminder_due: true }),
      items: [
        item('1', 'Plan', 'completed'),
        item('2', 'Write code', 'in_progress', 'Writing code'),
        item('3', 'Ship', 'pending'),
      ],
      rendered: '',
      rounds_since_todo: 3,
      settings: {},
      observed: null,
      editable: true,
      created_at: new Date(NOW - 60_000).toISOString(),
    }
    const text = renderSessionFrame(view, 'header', options)
    assert.match(text, /run-1 · s03 · v1 · round 1 · updated 5 s ago/)
    assert.match(text, /State: working {2}· reminder due/)
    assert.match(text, /^ {2}\[x\] #1 Plan$/m)
    assert.match(text, /^ {2}\[>\] #2 Write code {2}\(Writing code\)$/m)
    assert.match(text, /^ {2}\[ \] #3 Ship$/m)
  })
})

describe('cli lines', () => {
  it('Should cut a byte stream into whole lines whatever the reads, and drop the overlong', () => {
    // limit 12 bytes: the first line is 12 with its \r, the x line 13
    const text = '{"a":"€"}\r\nsecond ü\n' + 'x'.repeat(13) + '\n\n' + 'y'.repeat(12) + '\nlast'
    const bytes = Buffer.from(text)
    for (const size of [1, 2, 3, 7, bytes.length]) {
      const lines: string[] = []
      const overlong: number[] = []
      const splitter = new LineSplitter(
        12,
        (line) => lines.push(line),
        (n) => overlong.push(n)
      )
      for (let at = 0; at < bytes.length; at += size) splitter.push(bytes.subarray(at, at + size))
      splitter.end()
      const expected = ['{"a":"€"}\r', 'second ü', '', 'y'.repeat(12), 'last']
      assert.deepEqual(lines, expected, `reads of ${size}`)
      assert.deepEqual(overlong, [13], `reads of ${size}`)
    }
  })
})

describe('cli sse', () => {
  it('Should parse events across chunks, CRLF, multi-line data and comments', async () => {
    const chunks = [
      ': heartbeat\n\nevent: snap',
      'shot\r\nid: 3\r\ndata: {"a":\r\ndata: 1}\r\n\r\n',
      'data: x\n\n',
    ]
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk))
        controller.close()
      },
    })
    const events = []
    for await (const event of readSse(body)) events.push(event)
    assert.deepEqual(events, [
      { event: 'snapshot', data: '{"a":\n1}', id: '3' },
      { event: 'message', data: 'x', id: '3' },
    ])
  })
})

describe('cli arguments', () => {
  it('Should print usage and exit 2 without a command, 0 with --help', async () => {
    const out = sink()
    const err = sink()
    assert.equal(await runCli([], { stdout: out.stream, stderr: err.stream, env: {} }), 2)
    assert.match(err.text(), /Usage: agent-todos watch/)
    assert.equal(await runCli(['--help'], { stdout: out.stream, stderr: err.stream, env: {} }), 0)
    assert.match(out.text(), /--once/)
  })

  it('Should refuse a URL that is not http(s) and an unknown option', async () => {
    const err = sink()
    const io = { stdout: sink().stream, stderr: err.stream, env: {} }
    assert.equal(await runCli(['watch', '--url', 'ftp://example'], io), 2)
    assert.match(err.text(), /--url must be an http\(s\) URL/)
    assert.equal(await runCli(['watch', '--bogus'], io), 2)
  })
})

// what a terminal shows of a line: escape sequences take no cells
// eslint-disable-next-line no-control-regex -- ESC starts the escape sequences it takes out
const cells = (line: string) => Array.from(line.replace(/\x1b\[[0-9;]*m/g, '')).length

describe('cli render in narrow terminals', () => {
  const sessions = [
    summary('migrate-7'),
    summary('a-rather-long-session-id-of-forty-chars', { state: 'stale', stale: true }),
    summary('run-ended', {
      state: 'ended',
      ended: {
        outcome: 'max_turns',
        detail: null,
        at: new Date(NOW).toISOString(),
        unfinished: [],
      },
    }),
  ]
  const view: SessionView = {
    ...summary('migrate-7', { reminder_due: true }),
    items: [
      item('1', 'Read the configuration of every service in the fleet', 'completed'),
      item('2', 'Migrate the table', 'in_progress', 'Migrating the table of all the accounts'),
    ],
    rendered: '',
    rounds_since_todo: 3,
    settings: {},
    observed: null,
    editable: true,
    created_at: new Date(NOW - 60_000).toISOString(),
  }

  for (const width of [60, 40, 100]) {
    for (const color of [false, true]) {
      it(`Should keep every line within ${width} columns${color ? ' (colour)' : ''}`, () => {
        const at = { ...options, width, color }
        const frames = [
          renderTenantFrame(
            sessions,
            `agent-todos watch · all sessions · http://127.0.0.1:8080 · live`,
            at
          ),
          renderSessionFrame(view, 'agent-todos watch · session migrate-7 · live', at),
        ]
        for (const frame of frames) {
          for (const line of frame.split('\n')) {
            assert.ok(cells(line) <= width, `${cells(line)} cells: ${JSON.stringify(line)}`)
          }
        }
      })
    }
  }

  it('Should still show state, id, bar and percent of each session at 60 columns', () => {
    const text = renderTenantFrame(sessions, 'header', { ...options, width: 60 })
    assert.match(text, /^working\s+migrate-7\s+█+░+\s+33%/m)
    assert.match(text, /^stale\s+a-rather-\S*…\s+█+░+\s+33%/m)
    assert.match(text, /^ended at max\S*\s+run-ended /m)
    assert.match(text, /3 sessions: 1 working, 1 stale, 0 done, 1 ended/)
  })

  it('Should show a state a newer server adds under its own name', () => {
    const text = renderTenantFrame(
      [summary('run-w', { state: 'waiting' as SessionSummary['state'] })],
      'header',
      options
    )
    assert.match(text, /^waiting\s+run-w /m)
    assert.match(text, /1 waiting/)
  })
})

describe('cli watch: who and where, and --needs-you', () => {
  const origin = (
    user: string,
    host: string,
    repo: string | null = null,
    branch: string | null = null
  ) => ({
    user,
    host,
    cwd: null,
    repo,
    branch,
    agent: null,
    agent_version: null,
    model: null,
    user_verified: false,
  })
  const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString()
  const viewOf = (id: string): SessionView => ({
    ...summary(id),
    items: [],
    rendered: '',
    rounds_since_todo: 0,
    settings: {},
    observed: null,
    editable: true,
    created_at: ago(60),
  })
  const sessions = [
    summary('wait-late', {
      state: 'waiting',
      source: 'codex',
      waiting: {
        reason: 'permission_prompt',
        message: 'Permission needed to use shell',
        at: ago(60),
      },
      origin: origin('grace', 'laptop-1', 'acme/web', 'main'),
    }),
    summary('wait-early', {
      state: 'waiting',
      source: 'claude-code',
      waiting: { reason: 'idle_prompt', message: null, at: ago(600) },
      origin: origin('ada', 'laptop-1', 'https://github.com/acme/api.git', 'feat/a'),
    }),
    summary('stale-1', {
      state: 'stale',
      stale: true,
      updated_at: ago(3600),
      origin: origin('linus', 'build-2'),
    }),
    summary('ended-1', {
      state: 'ended',
      ended: { outcome: 'error', detail: 'crashed', at: ago(120), unfinished: ['2', '3'] },
      origin: origin('grace', 'build-2', 'acme/web', 'release'),
    }),
    summary('ended-clean', {
      state: 'ended',
      ended: { outcome: 'completed', detail: null, at: ago(30), unfinished: [] },
    }),
    summary('done-1', { state: 'done', progress: progress(3, 3) }),
    summary('working-1', { origin: origin('ada', 'build-2') }),
  ]

  it('Should show whose agent each session is and where, under its line', () => {
    const text = renderTenantFrame(sessions, 'header', options)
    const lines = text.split('\n')
    const at = lines.findIndex((line) => /\bwait-early\b/.test(line))
    assert.match(
      lines[at + 1],
      /^\s+ada@laptop-1 · https:\/\/github\.com\/acme\/api\.git \(feat\/a\)$/
    )
    const done = lines.findIndex((line) => /\bdone-1\b/.test(line))
    assert.doesNotMatch(lines[done + 1], /@/, 'no origin: no second line')
    const view = renderSessionFrame(
      {
        ...viewOf('wait-early'),
        origin: {
          ...origin('ada', 'laptop-1', 'acme/api', 'feat/a'),
          cwd: '/home/ada/api',
          model: 'claude-x',
        },
      },
      'header',
      options
    )
    assert.match(view, /^By: ada@laptop-1 · acme\/api \(feat\/a\)$/m)
    assert.match(view, /^in \/home\/ada\/api · model claude-x$/m)
  })

  it('Should list only what needs a person with --needs-you: waiting longest first, then stale, then ended with work left', () => {
    const text = renderTenantFrame(sessions, 'header', { ...options, width: 200, needsYou: true })
    const order = text
      .split('\n')
      .map(
        (line) =>
          /\b(wait-early|wait-late|stale-1|ended-1|ended-clean|done-1|working-1)\b/.exec(line)?.[1]
      )
      .filter(Boolean)
    assert.deepEqual(order, ['wait-early', 'wait-late', 'stale-1', 'ended-1'])
    assert.match(text, /^4 need you of 7 sessions:/m)
    assert.match(text, /wait-early .*waiting 10 min · idle_prompt/)
    assert.match(
      text,
      /wait-late .*waiting 1 min · permission_prompt: Permission needed to use shell/
    )
    assert.match(text, /stale-1 .*no change for 1 h/)
    assert.match(text, /ended-1 .*ended: error 2 min ago, 2 left/)
    assert.match(text, /^\s+grace@build-2 · acme\/web \(release\)$/m)
    const none = renderTenantFrame([summary('done-1', { state: 'done' })], 'header', {
      ...options,
      needsYou: true,
    })
    assert.match(none, /Nothing needs you/)
  })

  it('Should refuse --needs-you with a session', async () => {
    const err = sink()
    const code = await runCli(['watch', 'run-1', '--needs-you'], {
      stdout: sink().stream,
      stderr: err.stream,
      env: {},
    } as never)
    assert.equal(code, 2)
    assert.match(err.text(), /--needs-you lists the tenant's sessions/)
  })
})

describe('cli sse: the whole format (eventsource-parser)', () => {
  const parse = async (chunks: string[], onRetry?: (ms: number) => void) => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk))
        controller.close()
      },
    })
    const events = []
    for await (const event of readSse(body, { onRetry })) events.push(event)
    return events
  }

  it('Should end lines at a lone CR, skip a leading BOM and report retry:', async () => {
    let retry = 0
    const events = await parse(
      [
        '\uFEFFretry: 2500\r',
        'event: update\rid: 7\rdata: {"v":7}\r\r',
        'data: a\r\ndata: b\r\n\r\n',
      ],
      (ms) => (retry = ms)
    )
    assert.equal(retry, 2500)
    assert.deepEqual(events, [
      { event: 'update', data: '{"v":7}', id: '7' },
      { event: 'message', data: 'a\nb', id: '7' },
    ])
  })
})

describe('cli watch reconnects', () => {
  it('Should treat a 503 while the service restarts like a lost connection, and reconnect', async () => {
    let requests = 0
    const server = createServer((req, res) => {
      requests++
      if (requests === 2) {
        // what a draining instance answers on a kept-alive connection
        res.writeHead(503, { 'Content-Type': 'application/problem+json', 'Retry-After': '1' })
        res.end(
          JSON.stringify({
            status: 503,
            detail: 'This instance is shutting down; reconnect to another.',
          })
        )
        return
      }
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      const id = requests === 1 ? 'before-restart' : 'after-restart'
      res.write(`event: snapshot\ndata: ${JSON.stringify({ sessions: [summary(id)] })}\n\n`)
      // the first stream ends as a graceful shutdown ends it; the last one stays open
      if (requests === 1) res.end()
    })
    server.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const out = sink()
    const controller = new AbortController()
    // the pauses it would wait, without waiting them
    const pauses: number[] = []
    const running = watch({
      url,
      once: false,
      out: out.stream,
      color: false,
      signal: controller.signal,
      sleep: (ms) => Promise.resolve(void pauses.push(ms)),
    })
    try {
      const deadline = Date.now() + 10_000
      while (!/after-restart/.test(out.text())) {
        assert.ok(Date.now() < deadline, `no reconnect: ${out.text()}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      assert.match(out.text(), /before-restart/)
      assert.equal(requests, 3)
      // 1 s after the stream ended; then the doubled backoff, above the 503's Retry-After: 1
      assert.deepEqual(pauses, [1000, 2000])
      controller.abort()
      assert.equal(await running, 0)
    } finally {
      controller.abort()
      server.closeAllConnections()
      server.close()
    }
  })
})

/**
 * Runs `watch` against a listening server in a 60-column terminal (as tmux or a narrow window
 * reports it) until its output matches `until`, stops it (it must exit 0) and returns its last
 * frame as written, escapes included.
 */
async function lastWatchFrame(
  server: { address(): AddressInfo | string | null },
  until: RegExp,
  what?: string
): Promise<string> {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const out = sink()
  Object.assign(out.stream, { isTTY: true, columns: 60, rows: 30 })
  const controller = new AbortController()
  const running = watch({
    url,
    once: false,
    out: out.stream,
    color: true,
    signal: controller.signal,
  })
  try {
    const deadline = Date.now() + 5000
    while (!until.test(out.text())) {
      assert.ok(Date.now() < deadline, what ?? `no frame: ${out.text()}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    controller.abort()
    assert.equal(await running, 0)
    const frames = out.text().split('\x1b[H\x1b[2J').filter(Boolean)
    return frames[frames.length - 1]
  } finally {
    controller.abort()
  }
}

describe('cli watch on a narrow terminal', () => {
  it('Should draw every line of its frames within the terminal columns it is given (60)', async () => {
    const sessions = [
      summary('a-session-with-a-rather-long-identifier-0001'),
      summary('run-2', {
        current: item('9', 'Migrate every table of the accounts database', 'in_progress'),
        reminder_due: true,
      }),
    ]
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      res.write(`event: snapshot\ndata: ${JSON.stringify({ sessions })}\n\n`)
    })
    server.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    try {
      const frame = await lastWatchFrame(server, /run-2/, 'no frame')
      // eslint-disable-next-line no-control-regex -- ESC starts the cursor sequences it takes out
      const last = frame.replace(/\x1b\[\?25[hl]/g, '')
      assert.match(last, /run-2/)
      for (const line of last.split('\n')) {
        assert.ok(cells(line) <= 60, `${cells(line)} cells: ${JSON.stringify(line)}`)
      }
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})

describe('cli render of observed sessions (the ingest fixtures)', () => {
  const MAIN = 'claude:beb21700-11bb-4a47-9146-1f02fab85f4a'
  const SUBAGENT = `${MAIN}:agent:a3ad0f60fd2fb066f`
  const WAITING = 'claude:5d2e7f10-8a3b-4c6d-9e1f-2a3b4c5d6e7f'
  const NO_TOOLS = 'claude:f4d5e6f7-0819-4a3b-b4c5-d6e7f8091a2b'
  const CODEX = 'codex:0199a213-81c0-7800-8aa1-bbab2a035a53'
  const t = makeTestApp()
  let sessions: SessionSummary[] = []

  before(async () => {
    // the main session plans and starts a subagent, which writes its own list
    await postHooks(t, 'claude-code', fixtureJson('claude-code/subagent.hooks.json').slice(0, 4))
    // a plan, then Claude waits at its prompt
    await postHooks(t, 'claude-code', fixtureJson('claude-code/waiting.hooks.json'))
    // a headless run without todo tools, and a codex exec stream, both still running
    const running = (path: string) => fixtureLines(path).slice(0, -1).join('\n') + '\n'
    assert.equal(
      (await ingest(t, 'claude-agent-sdk', running('claude-agent-sdk/no-todo-tools.ndjson')))
        .status,
      200
    )
    assert.equal((await ingest(t, 'codex', running('codex/exec.jsonl'))).status, 200)
    // and a session fed by rounds
    const res = await t.call('POST', '/v1/sessions/run-42/rounds', {
      tool_calls: [
        {
          id: 'c1',
          name: 'todo',
          input: { items: [{ id: '1', text: 'Plan', status: 'in_progress' }] },
        },
      ],
    })
    assert.equal(res.status, 200)
    sessions = (await t.call('GET', '/v1/sessions')).body.sessions
    assert.equal(sessions.length, 6)
  })

  const at60 = { ...options, width: 60, now: t.clock.now + 5000 }
  const line = (text: string, pattern: RegExp) => {
    const found = text.split('\n').find((l) => pattern.test(l))
    assert.ok(found, `no line matches ${pattern}:\n${text}`)
    return found
  }

  it('Should badge the agent, indent a subagent under its main session and show waiting and todo tools off at 60 columns', () => {
    const text = renderTenantFrame(sessions, 'agent-todos watch · all sessions · live', at60)
    for (const row of text.split('\n'))
      assert.ok(cells(row) <= 60, `${cells(row)} cells: ${JSON.stringify(row)}`)
    assert.match(text, /6 sessions: 5 working, 1 waiting, 0 stale, 0 done, 0 ended/)
    assert.match(text, /^STATE\s+SOURCE\s+SESSION\s+PROGRESS\s+CURRENT$/m)
    // waiting is its own state, not working and not stale
    assert.match(
      line(text, /claude:5d2e/),
      /^waiting\s+claude\s+claude:5d2e\S*…\s+░+\s+0%\s+Writing/
    )
    const rows = text.split('\n')
    const main = rows.findIndex((row) => /claude:beb2/.test(row))
    assert.match(rows[main], /^working\s+claude\s+claude:beb2/)
    assert.match(rows[main + 1], /^working\s+claude\s+↳ agent:a3ad\S*\s+░+\s+0%\s+Reading/)
    assert.match(
      line(text, /claude:f4d5/),
      /^working\s+sdk\s+claude:f4d5\S*\s+todo tools off\s+set CLAUD/
    )
    assert.match(line(text, /codex:0199/), /^working\s+codex\s+codex:0199\S*\s+█+░+\s+66%/)
    // a session fed by rounds has no badge
    assert.match(line(text, /run-42/), /^working\s+run-42\s+░+\s+0%\s+Plan$/)
    // in colour too, every line fits
    const coloured = renderTenantFrame(sessions, 'header', { ...at60, color: true })
    for (const row of coloured.split('\n'))
      assert.ok(cells(row) <= 60, `${cells(row)} cells: ${JSON.stringify(row)}`)
  })

  it('Should name the agents in full where the terminal is wide', () => {
    const text = renderTenantFrame(sessions, 'header', { ...at60, width: 160 })
    assert.match(line(text, /claude:5d2e/), /^waiting\s+Claude Code\s+claude:5d2e/)
    assert.match(
      line(text, /claude:f4d5/),
      /^working\s+Claude SDK\s+claude:f4d5\S*\s+todo tools off\s+set CLAUDE_CODE_ENABLE_TODO_TOOLS=1$/
    )
    assert.match(line(text, /codex:0199/), /^working\s+Codex\s+codex:0199/)
    assert.match(line(text, /↳/), /^working\s+Claude Code\s+↳ agent:a3ad0f60fd2fb066f\s/)
  })

  it("Should show a session's agent, waiting, subagents, parent and todo tools off at 60 columns", async () => {
    const frame = async (id: string) => {
      const text = renderSessionFrame(await view(t, id), `agent-todos watch · session ${id}`, at60)
      for (const row of text.split('\n'))
        assert.ok(cells(row) <= 60, `${cells(row)} cells: ${JSON.stringify(row)}`)
      return text
    }
    const waiting = await frame(WAITING)
    assert.match(waiting, /^claude:5d2e7f10-8a3b-4c6d-9e1f-2a3b4c5d6e7f · Claude Code ·…$/m)
    assert.match(waiting, /^State: waiting$/m)
    assert.match(waiting, /^Waiting for a person \(idle_prompt\): Claude is waiting for y…$/m)
    const main = await frame(MAIN)
    assert.match(main, /^Subagents: agent:a3ad0f60fd2fb066f$/m)
    const subagent = await frame(SUBAGENT)
    assert.match(subagent, /^Subagent of claude:beb21700-11bb-4a47-9146-1f02fab85f4a$/m)
    const noTools = await frame(NO_TOOLS)
    assert.match(noTools, /^todo tools off \(set CLAUDE_CODE_ENABLE_TODO_TOOLS=1\)$/m)
    const codex = renderSessionFrame(await view(t, CODEX), 'header', { ...at60, width: 100 })
    // an observed agent runs no rounds here: no round count
    assert.match(codex, /^codex:\S+ · Codex · codex-plan · v\d+ · updated 5 s ago$/m)
    assert.doesNotMatch(codex, /round 0|todo tools off|Waiting/)
  })

  it("Should show a Claude edit as pending until the agent's next todo call", async () => {
    const put = await t.call('PUT', `/v1/sessions/${WAITING}/todos`, {
      items: [{ id: '1', content: 'Write the /health handler', status: 'completed' }],
    })
    assert.equal(put.status, 200)
    assert.match(
      renderSessionFrame(await view(t, WAITING), 'header', at60),
      /^Edit pending delivery to the agent \(made \d+ s ago\)$/m
    )
  })

  it('Should list a subagent at the top level when its main session is not listed', () => {
    const orphan = sessions.filter((s) => s.session_id !== MAIN)
    const text = renderTenantFrame(orphan, 'header', { ...at60, width: 120 })
    // its own id, from the start (cut to the column), not indented
    assert.match(
      line(text, /Reading the source/),
      /^working\s+Claude Code\s+claude:beb21700-11bb-4a47-9\S*…\s/
    )
    assert.doesNotMatch(text, /↳/)
    assert.deepEqual(
      nestSubagents(orphan)
        .map((row) => [row.session.session_id, row.depth])
        .filter(([id]) => id === SUBAGENT),
      [[SUBAGENT, 0]]
    )
  })

  it('Should nest subagents of subagents, and list sessions that name each other once each', () => {
    const rows = nestSubagents([
      { session_id: 'c', parent: 'b' },
      { session_id: 'x', parent: 'y' },
      { session_id: 'a', parent: null },
      { session_id: 'b', parent: 'a' },
      { session_id: 'y', parent: 'x' },
    ])
    assert.deepEqual(
      rows.map((row) => [row.session.session_id, row.depth]),
      [
        ['a', 0],
        ['b', 1],
        ['c', 2],
        ['x', 0],
        ['y', 1],
      ]
    )
  })

  it('Should draw them live in a 60-column terminal (watch on the tenant stream)', async () => {
    const server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' })
    await new Promise((resolve) => server.once('listening', resolve))
    try {
      // the frame as the terminal shows it: no colours, no cursor switches
      const last = (await lastWatchFrame(server, /↳ agent:/))
        .split('\u001b[')
        .map((part, i) => (i ? part.replace(/^[0-9;?]*[A-Za-z]/, '') : part))
        .join('')
      assert.match(last, /^waiting\s+claude\s+claude:5d2e/m)
      assert.match(last, /todo tools off/)
      for (const row of last.split('\n'))
        assert.ok(cells(row) <= 60, `${cells(row)} cells: ${JSON.stringify(row)}`)
    } finally {
      server.close()
    }
  })
})
