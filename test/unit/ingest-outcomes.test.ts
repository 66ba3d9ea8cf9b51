/**
 * Every agent's terminal events, through its ingest route, set `ended` as SPEC §3 "Observe" maps
 * them (the same outcomes `POST …/end` takes).
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { makeTestApp } from '../helpers.js'
import { fixtureJson, ingest, view } from '../ingest-support.js'

const SDK_SESSION = 'c1a2b3c4-d5e6-4f70-8192-a3b4c5d6e7f8'
/** A Claude Agent SDK `result` frame (the shape of claude-agent-sdk/todowrite.ndjson's). */
const sdkResult = (over: Record<string, unknown>) => ({
  type: 'result',
  subtype: 'success',
  duration_ms: 1154,
  duration_api_ms: 713,
  is_error: false,
  num_turns: 4,
  session_id: SDK_SESSION,
  total_cost_usd: 0,
  usage: { input_tokens: 30, output_tokens: 60 },
  permission_denials: [],
  uuid: `00000000-0000-4000-8000-${String(Math.random()).slice(2, 14).padStart(12, '0')}`,
  ...over,
})

describe('Ingest: how each agent says a run ended', () => {
  for (const [what, frame, outcome, detail] of [
    ['success', {}, 'completed', null],
    [
      'success with is_error (an API error, as the real CLI reports it)',
      { is_error: true, api_error_status: 529, result: 'API Error: 529 Overloaded' },
      'error',
      'api_error_status 529',
    ],
    [
      'success with is_error and no status',
      { is_error: true, result: 'API Error: Connection error.' },
      'error',
      'API Error: Connection error.',
    ],
    [
      'error_during_execution',
      { subtype: 'error_during_execution', is_error: true, errors: ['tool crashed'] },
      'error',
      'tool crashed',
    ],
    [
      'error_max_turns',
      { subtype: 'error_max_turns', is_error: true },
      'max_turns',
      'error_max_turns',
    ],
    [
      'aborted while streaming',
      { subtype: 'error_during_execution', is_error: true, terminal_reason: 'aborted_streaming' },
      'cancelled',
      'aborted_streaming',
    ],
    ['aborted in a tool', { terminal_reason: 'aborted_tools' }, 'cancelled', 'aborted_tools'],
  ] as const) {
    it(`Should end a Claude Agent SDK run on a result frame: ${what} → ${outcome}`, async () => {
      const t = makeTestApp()
      const res = await ingest(t, 'claude-agent-sdk', sdkResult(frame))
      assert.equal(res.status, 200, res.text)
      const session = await view(t, `claude:${SDK_SESSION}`)
      assert.equal(session.ended.outcome, outcome)
      assert.equal(session.ended.detail, detail)
    })
  }

  for (const [what, line, outcome, detail] of [
    ['success', { status: 'success' }, 'completed', null],
    [
      'FatalCancellationError',
      {
        status: 'error',
        error: { type: 'FatalCancellationError', message: 'Operation cancelled.' },
      },
      'cancelled',
      'Operation cancelled.',
    ],
    [
      'FatalTurnLimitedError',
      { status: 'error', error: { type: 'FatalTurnLimitedError', message: 'Reached max turns' } },
      'max_turns',
      'Reached max turns',
    ],
    [
      'another error',
      { status: 'error', error: { type: 'FatalToolExecutionError', message: 'boom' } },
      'error',
      'boom',
    ],
  ] as const) {
    it(`Should end a Gemini CLI run on its stream's result: ${what} → ${outcome}`, async () => {
      const t = makeTestApp()
      const body = [
        {
          type: 'init',
          timestamp: '2026-12-01T08:45:39.721Z',
          session_id: 'g1',
          model: 'gemini-2.5-pro',
        },
        { type: 'result', timestamp: '2026-12-01T08:45:40.410Z', ...line },
      ]
        .map((frame) => JSON.stringify(frame))
        .join('\n')
      const res = await ingest(t, 'gemini-cli', body)
      assert.equal(res.status, 200, res.text)
      const session = await view(t, 'gemini:g1')
      assert.equal(session.ended.outcome, outcome)
      assert.equal(session.ended.detail, detail)
    })
  }

  for (const [status, outcome, detail] of [
    ['finished', 'completed', null],
    ['error', 'error', 'error'],
    ['stuck', 'error', 'stuck'],
  ] as const) {
    it(`Should end an OpenHands run on execution_status ${status} → ${outcome}`, async () => {
      const t = makeTestApp()
      const conversation = '3458dce407074113961b51ee95851d0c'
      await ingest(t, `openhands/events/${conversation}`, fixtureJson('openhands/batch-1.json'))
      const res = await ingest(t, 'openhands/conversations', {
        id: '3458dce4-0707-4113-961b-51ee95851d0c',
        execution_status: status,
      })
      assert.equal(res.status, 200, res.text)
      const session = await view(t, `openhands:${conversation}`)
      assert.equal(session.ended.outcome, outcome)
      if (detail !== null) assert.equal(session.ended.detail, detail)
    })
  }
})
