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
 * Asserts a dialect's first tool in the Chat Completions format: its name, its parameters, and
 * how its description begins and ends. Returns the description.
 * @param dialect - the dialect
 * @param expected - the native's name, parameters and the description's first and last words
 */
export function assertNativeTool(
  dialect: Dialect,
  expected: { name: string; parameters: unknown; starts: string; ends: string }
): string {
  const tool = (
    formatTool(dialect.tools[0], 'openai') as {
      function: { name: string; description: string; parameters: unknown }
    }
  ).function
  assert.equal(tool.name, expected.name)
  assert.deepEqual(tool.parameters, expected.parameters)
  assert.ok(tool.description.startsWith(expected.starts), tool.description.slice(0, 200))
  assert.ok(tool.description.endsWith(expected.ends), tool.description.slice(-200))
  return tool.description
}

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
