/**
 * @module client/adapters/openai-agents
 * `agent-todos-client/openai-agents`: the todo tool of an OpenAI Agents JS `Agent`, owned by
 * agent-todos. `agentTodos(...)` returns `{tools, instructions, attach(agent)}`: the dialect's
 * todo tools; instructions carrying the native's system-prompt guidance and, on the model call
 * after a round that made it due, the reminder (the SDK lets an agent change its instructions
 * each turn but not the turn's input); `attach` listens to the agent's `agent_tool_start` events
 * and reports the calls a model turn started as one round. The SDK starts a turn's function
 * tools together; the round is sent once the event loop has turned (a `setTimeout(0)`) or when
 * the next turn begins, whichever is first, so a `maxFunctionToolConcurrency` below a turn's
 * call count would split the turn. Default dialect `s03`.
 *
 * Misuse fails clearly, never by waiting: a todo call whose start no attached agent saw (`attach`
 * not called, or called on another agent than the one run) is answered at once with an error
 * text saying to call `attach(agent)` (its turn cannot be reported, so its result would never
 * come), and `instructions` throws when no agent was attached (the run fails before its first
 * model call). Rounds are reported without `instructions` too; only the guidance and the reminder
 * need it.
 *
 * @example
 * ```ts
 * const todos = await agentTodos({ url, sessionId: 'run-42' })
 * const agent = todos.attach(new Agent({ name: 'coder', ...todos, tools: [...todos.tools] }))
 * await run(agent, 'Add a /health endpoint')
 * ```
 */
import { tool, type Agent, type AgentOutputType, type FunctionTool } from '@openai/agents'
import { openRounds, type AgentTodosOptions, type TurnCall } from './rounds.js'

export type { AgentTodosOptions } from './rounds.js'

// the client package is built without Node's or the DOM's types; every runtime it targets has it
declare function setTimeout(callback: () => void, ms: number): unknown

/**
 * The shape the SDK types a non-strict JSON schema with (its `JsonObjectSchemaNonStrict`, not
 * exported); the dialect's served schema goes to the model as it is.
 */
interface NonStrictParameters {
  type: 'object'
  properties: Record<string, never>
  required: never[]
  additionalProperties: true
}

/** What misuse says: the agent that runs the todo tools must be attached. */
const NOT_ATTACHED =
  'agent-todos: no agent is attached: call todos.attach(agent) on the Agent you run, so that each model turn is reported as a round'

/**
 * The todo tool's answer to a call no attached agent started: an error text for the model (the
 * Responses API has no error flag), saying what to fix.
 * @param name - the todo tool
 */
const notAttached = (name: string) =>
  `Error: ${name} cannot run: ${NOT_ATTACHED} (the agent running this tool was not attached).`

/** What {@link agentTodos} returns. */
export interface AgentTodos {
  /** The dialect's todo tools. */
  tools: FunctionTool<unknown, NonStrictParameters, string>[]
  /** The agent's instructions: the guidance, and a due reminder (compose with your own). */
  instructions: () => Promise<string>
  /** Reports each model turn of `agent` as one round; returns the agent. */
  attach<TContext, TOutput extends AgentOutputType>(
    agent: Agent<TContext, TOutput>
  ): Agent<TContext, TOutput>
}

/**
 * The agent-todos session `sessionId`'s todo tool for an OpenAI Agents JS agent.
 * @param options - server `url`, `key`, `sessionId`, `dialect` (default `s03`)
 * @throws AgentTodosError when the server refuses the dialect or the key
 */
export async function agentTodos(options: AgentTodosOptions): Promise<AgentTodos> {
  const rounds = await openRounds(options, { dialect: 's03' })
  let turn: TurnCall[] = []
  let attached = false
  /** Todo calls an attached agent started whose tool has not run yet. */
  const started = new Set<string>()
  const flush = () => {
    const calls = turn
    turn = []
    rounds.report(calls)
  }

  const tools = rounds.tools.map((spec) =>
    tool({
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters as unknown as NonStrictParameters,
      strict: false,
      // the result text goes to the model as it is: the Responses API has no error flag
      execute: async (_input, _context, details) => {
        const callId = details?.toolCall?.callId
        if (callId === undefined) throw new Error(`agent-todos: ${spec.name} called without an id`)
        // no attached agent saw the call start: its turn is never reported, its result never comes
        if (!started.delete(callId)) return notAttached(spec.name)
        return (await rounds.result(callId)).content
      },
    })
  )

  return {
    tools,
    instructions: async () => {
      if (!attached) throw new Error(NOT_ATTACHED)
      // the last turn's calls are all known once the next turn asks for its instructions
      if (turn.length > 0) flush()
      await rounds.settle()
      const reminder = rounds.takeReminder()
      return [rounds.systemPrompt, reminder].filter((text) => text !== null).join('\n\n')
    },
    attach(agent) {
      attached = true
      agent.on('agent_tool_start', (_context, _tool, { toolCall }) => {
        const call =
          toolCall.type === 'function_call'
            ? { id: toolCall.callId, name: toolCall.name, input: toolCall.arguments }
            : { id: toolCall.id ?? `call_${turn.length}`, name: toolCall.type, input: {} }
        if (rounds.isTodoTool(call.name)) started.add(call.id)
        const batch = turn
        // a later turn's calls are not this timer's: the next turn may have flushed this one
        if (batch.length === 0) setTimeout(() => batch === turn && batch.length > 0 && flush(), 0)
        batch.push(call)
      })
      agent.on('agent_end', () => {
        if (turn.length > 0) flush()
      })
      return agent
    },
  }
}
