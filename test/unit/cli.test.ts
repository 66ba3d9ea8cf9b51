import { Writable } from 'node:stream'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { runCli } from '../../src/cli/main.js'
import {
  fit,
  progressBar,
  renderSession,
  renderTenant,
  sanitize,
  type SessionSummary,
  type SessionView,
} from '../../src/cli/render.js'
import { readSse } from '../../src/cli/sse.js'

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
  progress: progress(1, 3, 1),
  current: item('2', 'Write code', 'in_progress', 'Writing code'),
  round: 1,
  reminder_due: false,
  ended: null,
  stale: false,
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

  it('Should tell working, stale, done and ended sessions apart in the tenant view', () => {
    const text = renderTenant(
      [
        summary('run-working'),
        summary('run-stale', { stale: true, updated_at: new Date(NOW - 60_000).toISOString() }),
        summary('run-done', { progress: progress(2, 2), current: null }),
        summary('run-ended', {
          ended: {
            outcome: 'max_turns',
            detail: null,
            at: new Date(NOW).toISOString(),
            unfinished: ['2'],
          },
        }),
        summary('run-refreshed-stale', { updated_at: new Date(NOW - 90_000).toISOString() }),
      ],
      new Set(['run-refreshed-stale']),
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
      created_at: new Date(NOW - 60_000).toISOString(),
    }
    const text = renderSession(view, false, 'header', options)
    assert.match(text, /run-1 · s03 · v1 · round 1 · updated 5 s ago/)
    assert.match(text, /State: working {2}· reminder due/)
    assert.match(text, /^ {2}\[x\] #1 Plan$/m)
    assert.match(text, /^ {2}\[>\] #2 Write code {2}\(Writing code\)$/m)
    assert.match(text, /^ {2}\[ \] #3 Ship$/m)
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
