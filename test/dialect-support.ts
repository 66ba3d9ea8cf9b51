/**
 * What a dialect's unit tests share: calls on an empty session, a refused call's text, the tool in
 * a provider format, and the reminders of rounds without the dialect's tool.
 */
import assert from 'node:assert/strict'
import type { CallOutcome, Dialect, DialectState } from '../src/dialects/types.js'
import { formatTool } from '../src/tools/formats.js'
import { round, type TestApp } from './helpers.js'

export const EMPTY_STATE: DialectState = { items: [], data: {} }

/**
 * One call of a dialect's tool, alone in its round, and the text of one it must refuse.
 * @param dialect - the dialect
 * @param toolName - the tool called
 */
export function dialectCalls(dialect: Dialect, toolName: string) {
  const apply = (input: unknown, state: DialectState = EMPTY_STATE): CallOutcome =>
    dialect.apply(state, toolName, input, { callsInRound: 1, indexInRound: 0 })
  /** The error text of a refused call on an empty session, which it must leave as it was. */
  const errorOf = (input: unknown) => {
    const outcome = apply(input)
    assert.equal(outcome.result.is_error, true)
    assert.equal(outcome.state, EMPTY_STATE)
    assert.deepEqual(outcome.dropped, [])
    return outcome.result.content
  }
  return { apply, errorOf }
}

/**
 * A dialect's first tool in the Chat Completions format.
 * @param dialect - the dialect
 */
export const openaiFunction = (dialect: Dialect) =>
  (
    formatTool(dialect.tools[0], 'openai') as {
      function: { name: string; description: string; parameters: unknown }
    }
  ).function

/**
 * The `reminder` of each of `rounds` rounds that call only another tool.
 * @param t - the app
 * @param sessionId - an existing session
 * @param rounds - how many rounds
 */
export async function remindersOfIdleRounds(
  t: TestApp,
  sessionId: string,
  rounds: number
): Promise<unknown[]> {
  const reminders: unknown[] = []
  for (let i = 0; i < rounds; i++) {
    reminders.push((await round(t, sessionId, [{ name: 'grep' }])).body.reminder)
  }
  return reminders
}
