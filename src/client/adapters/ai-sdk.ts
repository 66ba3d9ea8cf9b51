/**
 * @module client/adapters/ai-sdk
 * `agent-todos-client/ai-sdk`: the todo tool of an AI SDK (`ai`) tool loop, owned by agent-todos.
 * `agentTodos(...)` returns `{tools, prepareStep, onStepFinish}` to spread into `generateText` /
 * `streamText`: `prepareStep` wraps the step's model so that its answer (every tool call of the
 * step) is reported as one round before any tool runs, adds the native's system-prompt guidance
 * on the first step and a due reminder as a user message after the tool results; the todo tool's
 * result is the round's; `onStepFinish` waits for the step's round. Default dialect `s03`.
 *
 * @example
 * ```ts
 * const todos = await agentTodos({ url, sessionId: 'run-42' })
 * await generateText({ model, prompt, stopWhen: isStepCount(20), ...todos })
 * ```
 */
import {
  jsonSchema,
  tool,
  wrapLanguageModel,
  type Instructions,
  type LanguageModel,
  type LanguageModelMiddleware,
  type ModelMessage,
  type PrepareStepResult,
  type Tool,
  type ToolSet,
} from 'ai'
import { openRounds, type AgentTodosOptions, type TodoRounds, type TurnCall } from './rounds.js'

export type { AgentTodosOptions } from './rounds.js'

/** What a todo tool returns: the service's result text and whether it is an error. */
export interface TodoToolOutput {
  content: string
  is_error: boolean
}

/** What {@link agentTodos} returns, to spread into `generateText` / `streamText`. */
export interface AgentTodos {
  /** The dialect's todo tools (merge with your own: `tools: {...todos.tools, ...mine}`). */
  tools: Record<string, Tool<unknown, TodoToolOutput>>
  /** Reports each step's model answer as a round; guidance and reminder into the prompt. */
  prepareStep<TOOLS extends ToolSet>(options: {
    stepNumber: number
    model: LanguageModel
    messages: ModelMessage[]
    initialInstructions: Instructions | undefined
  }): Promise<PrepareStepResult<TOOLS>>
  /** Waits for the step's round (its failure surfaces here). */
  onStepFinish: () => Promise<void>
}

/** The tool calls of a model answer, as the rounds take them (arguments: the model's JSON). */
function turnCalls(
  parts: readonly { type: string; toolCallId?: string; toolName?: string; input?: unknown }[]
): TurnCall[] {
  return parts
    .filter((part) => part.type === 'tool-call')
    .map((part) => ({ id: part.toolCallId ?? '', name: part.toolName ?? '', input: part.input }))
}

/** A middleware that reports each answer of the model as one round. */
function reportingMiddleware(rounds: TodoRounds): LanguageModelMiddleware {
  return {
    wrapGenerate: async ({ doGenerate }) => {
      const result = await doGenerate()
      rounds.report(turnCalls(result.content))
      return result
    },
    wrapStream: async ({ doStream }) => {
      const { stream, ...rest } = await doStream()
      const seen: TurnCall[] = []
      const watched = stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            seen.push(...turnCalls([part]))
            controller.enqueue(part)
          },
          flush() {
            rounds.report(seen)
          },
        })
      )
      return { stream: watched, ...rest }
    },
  }
}

/** The caller's instructions with the native's guidance after them. */
function withGuidance(instructions: Instructions | undefined, guidance: string): Instructions {
  if (instructions === undefined) return guidance
  if (typeof instructions === 'string') return `${instructions}\n\n${guidance}`
  const list = Array.isArray(instructions) ? instructions : [instructions]
  return [...list, { role: 'system', content: guidance }]
}

/**
 * The agent-todos session `sessionId`'s todo tool for an AI SDK tool loop.
 * @param options - server `url`, `key`, `sessionId`, `dialect` (default `s03`)
 * @throws AgentTodosError when the server refuses the dialect or the key
 */
export async function agentTodos(options: AgentTodosOptions): Promise<AgentTodos> {
  const rounds = await openRounds(options, { dialect: 's03' })
  const wrapped = new WeakMap<object, LanguageModel>()
  const middleware = reportingMiddleware(rounds)

  const tools: AgentTodos['tools'] = {}
  for (const spec of rounds.tools) {
    tools[spec.name] = tool({
      description: spec.description,
      inputSchema: jsonSchema(spec.parameters),
      execute: async (_input: unknown, { toolCallId }): Promise<TodoToolOutput> => {
        const result = await rounds.result(toolCallId)
        return { content: result.content, is_error: result.is_error }
      },
      // the service's text, byte for byte, as a text or an error-text result
      toModelOutput: ({ output }) =>
        output.is_error
          ? { type: 'error-text', value: output.content }
          : { type: 'text', value: output.content },
    })
  }

  return {
    tools,
    async prepareStep({ stepNumber, model, messages, initialInstructions }) {
      if (typeof model === 'string')
        throw new Error('agent-todos: pass the model as an instance (openai("…")), not an id')
      let reporting = wrapped.get(model)
      if (!reporting) {
        reporting = wrapLanguageModel({ model, middleware })
        wrapped.set(model, reporting)
      }
      await rounds.settle()
      const reminder = rounds.takeReminder()
      const guidance = rounds.systemPrompt
      return {
        model: reporting,
        // overrides carry forward to later steps: the guidance is added once, the reminder kept
        ...(stepNumber === 0 && guidance !== null
          ? { instructions: withGuidance(initialInstructions, guidance) }
          : {}),
        ...(reminder === null
          ? {}
          : { messages: [...messages, { role: 'user' as const, content: reminder }] }),
      }
    },
    onStepFinish: () => rounds.settle(),
  }
}
