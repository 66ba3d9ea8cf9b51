import { generateText, isStepCount, type LanguageModel, type ToolSet } from 'ai'
import { agentTodos } from 'agent-todos-client/ai-sdk'

/** Runs `task` with its todo list kept by agent-todos, as session `sessionId`. */
export async function runTask(
  model: LanguageModel,
  tools: ToolSet,
  task: string,
  sessionId: string
) {
  const url = process.env.AGENT_TODOS_URL ?? 'http://localhost:8080'
  const todos = await agentTodos({ url, sessionId })
  const { tools: todoTools, ...hooks } = todos
  return generateText({
    model,
    tools: { ...tools, ...todoTools },
    prompt: task,
    stopWhen: isStepCount(20),
    ...hooks,
  })
}
