/**
 * @module client/adapters/langchain
 * `agent-todos-client/langchain`: the todo tool of a LangChain JS agent, owned by agent-todos.
 * The middleware adds the dialect's todo tool and the native's system-prompt guidance, reports
 * each model turn (its todo and other tool calls together) as one round after the model answers,
 * answers the todo calls with the round's results, and hands a due reminder to the next model
 * call as a human message after the tool messages. The pattern is langchain's own
 * `todoListMiddleware`; the default dialect is `langchain-todos` in its `js` flavour (that
 * middleware's texts).
 *
 * @example
 * ```ts
 * const agent = createAgent({
 *   model: 'openai:gpt-5',
 *   middleware: [await agentTodosMiddleware({ url, sessionId: 'run-42' })],
 * })
 * ```
 */
import {
  AIMessage,
  HumanMessage,
  ToolMessage,
  createMiddleware,
  type AgentMiddleware,
  type DynamicStructuredTool,
} from 'langchain'
import { tool } from '@langchain/core/tools'
import { openRounds, type AgentTodosOptions } from './rounds.js'

export type { AgentTodosOptions } from './rounds.js'

/**
 * The middleware {@link agentTodosMiddleware} returns: no state or context schema of its own, the
 * dialect's todo tools. Written out, not inferred, so that the published declaration is
 * langchain's own type whether the package was built against langchain or against the structural
 * declarations of packages/client/framework-types (a build without test/agents/).
 */
type TodoMiddleware = AgentMiddleware<
  undefined,
  undefined,
  unknown,
  DynamicStructuredTool<Record<string, unknown>, unknown, unknown, unknown, unknown, string>[],
  readonly []
>

/**
 * A LangChain middleware for `createAgent({model, middleware: [...]})` whose todo tool is the
 * agent-todos session `sessionId`'s.
 * @param options - server `url`, `key`, `sessionId`, `dialect` (default `langchain-todos`, js)
 * @throws AgentTodosError when the server refuses the dialect or the key
 */
export async function agentTodosMiddleware(options: AgentTodosOptions): Promise<TodoMiddleware> {
  const rounds = await openRounds(options, { dialect: 'langchain-todos', flavour: 'js' })
  const tools = rounds.tools.map((spec) =>
    tool(
      // never runs: wrapToolCall answers these calls with the round's results
      () => {
        throw new Error(`agent-todos: ${spec.name} is answered by its round`)
      },
      { name: spec.name, description: spec.description, schema: spec.parameters }
    )
  )
  return createMiddleware({
    name: 'agentTodosMiddleware',
    tools,
    beforeModel: async () => {
      await rounds.settle()
      const reminder = rounds.takeReminder()
      // kept in the conversation, as a loop appends it to its next user message
      return reminder === null ? undefined : { messages: [new HumanMessage(reminder)] }
    },
    wrapModelCall: (request, handler) =>
      handler(
        rounds.systemPrompt === null
          ? request
          : {
              ...request,
              systemMessage: request.systemMessage.concat(`\n\n${rounds.systemPrompt}`),
            }
      ),
    afterModel: async (state) => {
      const last = [...state.messages].reverse().find((message) => AIMessage.isInstance(message))
      const calls = last?.tool_calls ?? []
      await rounds.report(
        calls.map((call, index) => ({
          id: call.id ?? `call_${index}`,
          name: call.name,
          input: call.args,
        }))
      )
      return undefined
    },
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request
      if (!rounds.isTodoTool(toolCall.name) || toolCall.id === undefined) return handler(request)
      const result = await rounds.result(toolCall.id)
      return new ToolMessage({
        content: result.content,
        tool_call_id: toolCall.id,
        name: toolCall.name,
        status: result.is_error ? 'error' : 'success',
      })
    },
  })
}
