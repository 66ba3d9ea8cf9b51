import { Agent, run, type Model, type Tool } from '@openai/agents'
import { agentTodos } from 'agent-todos-client/openai-agents'

/** Runs `task` with its todo list kept by agent-todos, as session `sessionId`. */
export async function runTask(
  model: Model | string,
  tools: Tool[],
  task: string,
  sessionId: string
) {
  const url = process.env.AGENT_TODOS_URL ?? 'http://localhost:8080'
  const todos = await agentTodos({ url, sessionId })
  const agent = new Agent({
    name: 'coder',
    model,
    instructions: todos.instructions,
    tools: [...tools, ...todos.tools],
  })
  return run(todos.attach(agent), task)
}
