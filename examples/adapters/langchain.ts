import { createAgent } from 'langchain'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import type { StructuredToolInterface } from '@langchain/core/tools'
import { agentTodosMiddleware } from 'agent-todos-client/langchain'

/** Runs `task` with its todo list kept by agent-todos, as session `sessionId`. */
export async function runTask(
  model: BaseChatModel,
  tools: StructuredToolInterface[],
  task: string,
  sessionId: string
) {
  const url = process.env.AGENT_TODOS_URL ?? 'http://localhost:8080'
  const agent = createAgent({
    model,
    tools,
    middleware: [await agentTodosMiddleware({ url, sessionId })],
  })
  return agent.invoke({ messages: [{ role: 'user', content: task }] })
}
