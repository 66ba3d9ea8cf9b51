/**
 * `langchain` as src/client/adapters/langchain.ts uses it, for the package's build only
 * (tsconfig.adapters.json maps the module here). Why structural types of our own: the framework
 * is an optional peer, installed for the tests in test/agents/ alone, and the package must build
 * (npm pack) on the root install. The adapter is checked against the real types by
 * `npm run typecheck:providers` (the root tsconfig.adapters.json); the published declarations
 * name the framework's types by module, so a consumer's resolve to the real ones. The type
 * parameters stand in for the real ones by position only.
 */
export type { DynamicStructuredTool } from '@langchain/core/tools'

/** A tool call of a model's answer. */
export interface ToolCall {
  id?: string
  name: string
  args: Record<string, unknown>
}

declare class BaseMessage {
  content: unknown
}

export declare class HumanMessage extends BaseMessage {
  constructor(content: string)
}

export declare class SystemMessage extends BaseMessage {
  concat(chunk: string): SystemMessage
}

export declare class AIMessage extends BaseMessage {
  tool_calls?: ToolCall[]
  static isInstance(message: unknown): message is AIMessage
}

export declare class ToolMessage extends BaseMessage {
  constructor(fields: {
    content: string
    tool_call_id: string
    name?: string
    status?: 'success' | 'error'
  })
}

/** What a model call is asked with (the fields the adapter reads or replaces). */
export interface ModelRequest {
  systemMessage: SystemMessage
  messages: BaseMessage[]
}

/** What a tool call is run with. */
export interface ToolCallRequest {
  toolCall: ToolCall
}

/** A middleware of `createAgent` (the real interface has five type parameters too). */
export interface AgentMiddleware<
  TSchema = unknown,
  TContextSchema = unknown,
  TFullContext = unknown,
  TTools extends readonly unknown[] = readonly unknown[],
  TStreamTransformers extends readonly unknown[] = readonly unknown[],
> {
  name: string
  tools?: TTools
  /** Carries the type parameters, as the real interface's `~middlewareTypes` does. */
  readonly '~middlewareTypes'?: [TSchema, TContextSchema, TFullContext, TStreamTransformers]
}

/** A middleware from its hooks. */
export declare function createMiddleware<const TTools extends readonly unknown[]>(config: {
  name: string
  tools?: TTools
  beforeModel?: () => Promise<{ messages: BaseMessage[] } | undefined>
  wrapModelCall?: (
    request: ModelRequest,
    handler: (request: ModelRequest) => Promise<AIMessage>
  ) => Promise<AIMessage>
  afterModel?: (state: { messages: BaseMessage[] }) => Promise<undefined>
  wrapToolCall?: (
    request: ToolCallRequest,
    handler: (request: ToolCallRequest) => Promise<ToolMessage>
  ) => Promise<ToolMessage>
}): AgentMiddleware<undefined, undefined, unknown, TTools, readonly []>
