/**
 * What a dialect's unit tests share: calls on an empty session, a refused call's text, the tool in
 * a provider format, a refused operator's list, the shape of a todo tool's parameters, the fields
 * of a list a test compares, Claude Code's unparsable-JSON text, and the HTTP steps of their "over
 * HTTP" cases (a session's first rounds, the reorder case, the tools served, the session read
 * back, an operator's list refused, the reminders of rounds without the dialect's tool), bound to
 * one dialect by `dialectKit`.
 */
import assert from 'node:assert/strict'
import type { Item } from '../src/core/items.js'
import type { CallContext, CallOutcome, Dialect, DialectState } from '../src/dialects/types.js'
import { formatTool } from '../src/tools/formats.js'
import { makeTestApp, round, type TestApp } from './helpers.js'

export const EMPTY_STATE: DialectState = { items: [], data: {} }

/**
 * One call of a dialect's tool, alone in its round unless `ctx` says otherwise, calls in turn as
 * one session makes them, and the text of one it must refuse.
 * @param dialect - the dialect
 * @param toolName - the tool called
 */
export function dialectCalls(dialect: Dialect, toolName: string) {
  const apply = (
    input: unknown,
    state: DialectState = EMPTY_STATE,
    ctx: CallContext = { callsInRound: 1, indexInRound: 0 }
  ): CallOutcome => dialect.apply(state, toolName, input, ctx)
  /** The error text of a refused call on an empty session, which it must leave as it was. */
  const errorOf = (input: unknown) => {
    const outcome = apply(input)
    assert.equal(outcome.result.is_error, true)
    assert.equal(outcome.state, EMPTY_STATE)
    assert.deepEqual(outcome.dropped, [])
    return outcome.result.content
  }
  /** The outcomes of calls with these inputs in turn, each on the state the one before left. */
  const run = (...inputs: unknown[]): CallOutcome[] => {
    let state = EMPTY_STATE
    return inputs.map((input) => {
      const outcome = apply(input, state)
      state = outcome.state
      return outcome
    })
  }
  return { apply, errorOf, run }
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
 * Asserts that a dialect refuses an operator's list, and with which message.
 * @param dialect - the dialect
 * @param items - the list
 * @param message - the refusal's message
 */
export function assertListRefused(dialect: Dialect, items: readonly Item[], message: string): void {
  assert.deepEqual(dialect.checkList(items), { ok: false, message })
}

/**
 * The JSON Schema of a todo tool's parameters, in the shape the natives share: one required
 * parameter `todos`, an array of objects. The arguments are what a native adds to that shape.
 * @param item - the item object's keywords (its properties, which are required, a description)
 * @param todos - the array's other keywords (its description)
 * @param root - the parameters' other keywords (`additionalProperties`)
 */
export function todosParameters(
  item: Record<string, unknown>,
  todos: Record<string, unknown> = {},
  root: Record<string, unknown> = {}
) {
  return {
    type: 'object',
    properties: { todos: { type: 'array', items: { type: 'object', ...item }, ...todos } },
    required: ['todos'],
    ...root,
  }
}

/**
 * Each item's values of `keys`, in that order: the part of a list (the session's, the dropped
 * items, a round's results) a test compares.
 * @param items - the items
 * @param keys - the fields to read
 */
export function fieldsOf<T extends object>(items: readonly T[], ...keys: (keyof T)[]): unknown[][] {
  return items.map((item) => keys.map((key) => item[key]))
}

/**
 * Claude Code's answer to tool arguments it cannot parse as JSON, in both Claude dialects.
 * @param tool - the tool called
 * @param counts - how many of the arguments' bytes it quotes, of how many (`14 of 14`)
 * @param quoted - those bytes as it quotes them
 */
export function claudeUnparsable(tool: string, counts: string, quoted: string): string {
  return `<tool_use_error>InputValidationError: ${tool} was called with input that could not be parsed as JSON.\nYou sent (first ${counts} bytes): ${quoted}\nCommon causes: unescaped backslashes in file paths (use / or \\\\), unescaped control characters, or truncated output. Retry with valid JSON.</tool_use_error>`
}

/** A tool call of a round, as `round` (test/helpers.ts) sends it. */
export type RoundCall = Parameters<typeof round>[2][number]

/**
 * A tool call as an OpenAI-style model sends it, its arguments a JSON text.
 * @param id - the call's id
 * @param name - the tool called
 * @param args - the arguments, sent as `JSON.stringify(args)`
 */
export function jsonCall(id: string, name: string, args: unknown): RoundCall {
  return { id, name, arguments: JSON.stringify(args) }
}

/**
 * The HTTP steps of a dialect's "over HTTP" cases, each case on an app of its own: the rounds of a
 * session whose first round puts it in `dialect`, the tools served, the session read back, an
 * operator's list refused, and the reminders of idle rounds.
 * @param dialect - the dialect's name
 */
export function dialectHttp(dialect: string) {
  /** A new app and the response to its session's first round, `calls`. */
  const start = async (sessionId: string, calls: RoundCall[]) => {
    const t = makeTestApp()
    return { t, res: await round(t, sessionId, calls, { dialect }) }
  }
  /** A new app whose session `sessionId` has had a first round of `calls`. */
  const afterRound = async (sessionId: string, calls: RoundCall[]): Promise<TestApp> =>
    (await start(sessionId, calls)).t
  /** The body of GET /v1/tools for the dialect in `format`, asserted answered with 200. */
  const tools = async (format: string, t: TestApp = makeTestApp()): Promise<any> => {
    const res = await t.call('GET', `/v1/tools?dialect=${dialect}&format=${format}`)
    assert.equal(res.status, 200)
    return res.body
  }
  return {
    afterRound,
    tools,

    /** The first round of a session on a new app, asserted answered with 200. */
    async firstRound(sessionId: string, calls: RoundCall[]) {
      const started = await start(sessionId, calls)
      assert.equal(started.res.status, 200)
      return started
    },

    /** Two rounds of a session on a new app: the app and the second round's response. */
    async secondRound(sessionId: string, first: RoundCall[], second: RoundCall[]) {
      const t = await afterRound(sessionId, first)
      return { t, res: await round(t, sessionId, second) }
    },

    /**
     * The reorder case: a session's first round writes A, B and C, its second C and A. Asserts
     * that the second round reports B, id 2, dropped, and returns the app.
     * @param write - the dialect's call writing pending items of these contents
     */
    async reorder(sessionId: string, write: (contents: string[]) => RoundCall): Promise<TestApp> {
      const t = await afterRound(sessionId, [write(['A', 'B', 'C'])])
      const res = await round(t, sessionId, [write(['C', 'A'])])
      assert.deepEqual(fieldsOf(res.body.dropped, 'id', 'content'), [['2', 'B']])
      return t
    },

    /**
     * GET /v1/tools in the Chat Completions format: asserts the first tool's name and parameters
     * and returns the tools served.
     */
    async assertServedOpenai(expected: { name: string; parameters: unknown }): Promise<any[]> {
      const served = (await tools('openai')).tools
      assert.equal(served[0].function.name, expected.name)
      assert.deepEqual(served[0].function.parameters, expected.parameters)
      return served
    },

    /** A session as GET /v1/sessions/{id} shows it: the response's body. */
    async view(t: TestApp, sessionId: string): Promise<any> {
      return (await t.call('GET', `/v1/sessions/${sessionId}`)).body
    },

    /**
     * A PUT of an operator's list (`body`: its `items`, and `dialect` for a new session) that
     * must be refused: asserts the 422 and returns the problem's detail.
     */
    async refusedPut(t: TestApp, sessionId: string, body: unknown): Promise<string> {
      const res = await t.call('PUT', `/v1/sessions/${sessionId}/todos`, body)
      assert.equal(res.status, 422)
      return res.body.detail
    },

    /** The `reminder` of each of `rounds` rounds of a session that call only `tool`. */
    async reminders(t: TestApp, sessionId: string, rounds: number, tool = 'grep') {
      const reminders: unknown[] = []
      for (let i = 0; i < rounds; i++) {
        reminders.push((await round(t, sessionId, [{ name: tool }])).body.reminder)
      }
      return reminders
    },
  }
}

/**
 * What a dialect's tests do with it, bound to it once: its tool's calls (`dialectCalls`), its
 * native tool and its refusal of an operator's list asserted, and the HTTP steps of its "over
 * HTTP" cases (`dialectHttp`).
 * @param dialect - the dialect
 * @param toolName - the tool its calls call
 */
export function dialectKit(dialect: Dialect, toolName: string) {
  return {
    ...dialectCalls(dialect, toolName),
    /** `assertNativeTool` of the dialect. */
    assertNativeTool: (expected: Parameters<typeof assertNativeTool>[1]) =>
      assertNativeTool(dialect, expected),
    /** `assertListRefused` of the dialect. */
    assertListRefused: (items: readonly Item[], message: string) =>
      assertListRefused(dialect, items, message),
    http: dialectHttp(dialect.name),
  }
}
