/**
 * Decisions in alerts: a `session.waiting` body carries the pending request and its `decide_url`,
 * and a person's answer sends `session.decided` with `decision: {request_id, outcome, by,
 * channel}`.
 */
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { eventually } from '../eventually.js'
import { startAlertApp, startReceiver } from '../webhook-support.js'
import { permissionInput, claudeSession, until } from '../decision-support.js'

describe('Decisions in alerts', () => {
  const stops: (() => Promise<unknown>)[] = []
  after(async () => {
    for (const stop of stops) await stop()
  })

  it('Should carry the request and decide_url in session.waiting, and send session.decided', async () => {
    const receiver = await startReceiver()
    const h = startAlertApp({ authKeys: 'acme:admin:admin-key-0001' })
    stops.push(receiver.close, h.stop)
    const key = 'admin-key-0001'
    const created = await h.call(
      'POST',
      '/v1/webhooks',
      { url: receiver.url, events: ['session.waiting', 'session.decided'] },
      key
    )
    assert.equal(created.status, 201, created.text)
    const held = h.call('POST', '/v1/ingest/claude-code?decide=1', permissionInput, key)
    assert.ok(await eventually(() => receiver.of('session.waiting').length === 1))
    const waiting = receiver.of('session.waiting')[0].json.data.waiting
    assert.equal(waiting.reason, 'permission_prompt')
    assert.equal(waiting.request.tool, 'Bash')
    assert.equal(waiting.request.match, undefined)
    assert.equal(
      waiting.decide_url,
      `https://todos.example.com/v1/sessions/${encodeURIComponent(claudeSession)}/decisions`
    )
    const res = await until(async () => {
      const r = await h.call(
        'POST',
        `/v1/sessions/${claudeSession}/decisions`,
        { request_id: waiting.request.id, decision: 'deny', message: 'no' },
        key
      )
      return r.status === 200 ? r : null
    })
    assert.ok(res)
    assert.equal((await held).body.hookSpecificOutput.decision.behavior, 'deny')
    assert.ok(await eventually(() => receiver.of('session.decided').length === 1))
    assert.deepEqual(receiver.of('session.decided')[0].json.data.decision, {
      request_id: waiting.request.id,
      outcome: 'denied',
      by: 'admin-key',
      channel: 'api',
    })
    const metrics = await h.app.request('/metrics')
    const text = await metrics.text()
    assert.match(text, /agent_todos_decisions_total\{outcome="denied",channel="api"\} 1/)
    assert.match(text, /agent_todos_decision_seconds_count\{channel="api"\} 1/)
  })
})
