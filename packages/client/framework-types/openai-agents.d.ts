/**
 * `@openai/agents` (OpenAI Agents JS) as src/client/adapters/openai-agents.ts uses it, for the
 * package's build only (tsconfig.adapters.json maps the module here). Why structural types of our
 * own: the framework is an optional peer, installed for the tests in test/agents/ alone, and the
 * package must build (npm pack) on the root install. The adapter is checked against the real
 * types by `npm run typecheck:providers` (the root tsconfig.adapters.json); the published
 * declarations name the framework's types by module, so a consumer's resolve to the real ones.
 * The type parameters stand in for the real ones by position only.
 */

/** What an agent's output is typed by (the real union: text, a zod object, a JSON schema …). */
export type AgentOutputType = 'text' | Record<string, unknown>

export interface RunContext<TContext = unknown> {
  context: TContext
}

export interface FunctionTool<Context = unknown, TParameters = undefined, Result = unknown> {
  type: 'function'
  name: string
  description: string
  parameters: TParameters
  strict: boolean
  readonly _types?: [Context, Result]
}

export declare function tool<TParameters, Context = unknown, Result = string>(options: {
  name: string
  description: string
  parameters: TParameters
  strict?: boolean
  execute: (
    input: unknown,
    context?: RunContext<Context>,
    details?: { toolCall?: { callId: string } }
  ) => Result | Promise<Result>
}): FunctionTool<Context, TParameters, Result>

/** A function tool's call, as a model turn started it. */
export interface FunctionCallItem {
  type: 'function_call'
  callId: string
  name: string
  arguments: string
}

/** Any other tool call: hosted, computer, shell, patch. */
export interface OtherToolCallItem {
  type: 'hosted_tool_call' | 'computer_call' | 'shell_call' | 'apply_patch_call'
  id?: string
}

export type ToolCallItem = FunctionCallItem | OtherToolCallItem

export declare class Agent<TContext = unknown, TOutput extends AgentOutputType = 'text'> {
  readonly outputType: TOutput
  on(
    event: 'agent_tool_start',
    listener: (
      context: RunContext<TContext>,
      tool: unknown,
      details: { toolCall: ToolCallItem }
    ) => void
  ): this
  on(event: 'agent_end', listener: (context: RunContext<TContext>, output: string) => void): this
}
