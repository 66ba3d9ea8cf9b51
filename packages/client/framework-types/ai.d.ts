/**
 * `ai` (the AI SDK) as src/client/adapters/ai-sdk.ts uses it, for the package's build only
 * (tsconfig.adapters.json maps the module here). Why structural types of our own: the framework
 * is an optional peer, installed for the tests in test/agents/ alone, and the package must build
 * (npm pack) on the root install. The adapter is checked against the real types by
 * `npm run typecheck:providers` (the root tsconfig.adapters.json); the published declarations
 * name the framework's types by module, so a consumer's resolve to the real ones. The type
 * parameters stand in for the real ones by position only.
 */

/** A JSON schema typed with the value it describes. */
export interface Schema<T = unknown> {
  readonly jsonSchema: Record<string, unknown>
  readonly _type?: T
}

export declare function jsonSchema<T = unknown>(schema: Record<string, unknown>): Schema<T>

/** What a tool's `execute` is told besides its input. */
export interface ToolExecutionOptions {
  toolCallId: string
}

/** A tool result as the model is given it. */
export type ToolResultOutput =
  { type: 'text'; value: string } | { type: 'error-text'; value: string }

export interface Tool<INPUT = unknown, OUTPUT = unknown> {
  description?: string
  inputSchema: Schema<INPUT>
  execute?: (input: INPUT, options: ToolExecutionOptions) => PromiseLike<OUTPUT>
  toModelOutput?: (options: { output: OUTPUT }) => ToolResultOutput
}

export declare function tool<INPUT, OUTPUT>(tool: Tool<INPUT, OUTPUT>): Tool<INPUT, OUTPUT>

export type ToolSet = Record<string, Tool<never, unknown>>

/** A model instance (the real union holds the provider specifications' versions). */
export interface LanguageModelV3 {
  readonly specificationVersion: string
  readonly provider: string
  readonly modelId: string
}

/** A model: an instance, or a gateway model id. */
export type LanguageModel = string | LanguageModelV3

export interface SystemModelMessage {
  role: 'system'
  content: string
}

export type ModelMessage =
  SystemModelMessage | { role: 'user' | 'assistant' | 'tool'; content: unknown }

export type Instructions = string | SystemModelMessage | Array<SystemModelMessage>

/** What `prepareStep` may change for a step. */
export type PrepareStepResult<TOOLS extends ToolSet> =
  | {
      model?: LanguageModel
      instructions?: Instructions
      messages?: ModelMessage[]
      activeTools?: Array<keyof TOOLS>
    }
  | undefined

/** A part of a model's answer (the fields the adapter reads of a tool call). */
interface ContentPart {
  type: string
  toolCallId?: string
  toolName?: string
  input?: string
}

export interface LanguageModelMiddleware {
  wrapGenerate?: (options: {
    doGenerate: () => PromiseLike<{ content: ContentPart[] }>
  }) => PromiseLike<{ content: ContentPart[] }>
  wrapStream?: (options: {
    doStream: () => PromiseLike<{ stream: ReadableStream<ContentPart> }>
  }) => PromiseLike<{ stream: ReadableStream<ContentPart> }>
}

export declare function wrapLanguageModel(options: {
  model: LanguageModelV3
  middleware: LanguageModelMiddleware | LanguageModelMiddleware[]
}): LanguageModelV3

/*
 * The web streams the adapter pipes a streamed answer through: globals of every runtime it
 * targets, typed by lib.dom or @types/node, neither of which the client package's build loads
 * (tsconfig.json: types []; the real `ai` brings Node's types in through its dependencies). As
 * lib.dom declares them, `any` defaults included, and only what the adapter uses.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
declare global {
  interface WritableStream<W = any> {
    abort(reason?: unknown): Promise<void>
    readonly _chunk?: W
  }
  interface ReadableStream<R = any> {
    pipeThrough<T>(transform: {
      readable: ReadableStream<T>
      writable: WritableStream<R>
    }): ReadableStream<T>
  }
  interface TransformStreamDefaultController<O = any> {
    enqueue(chunk: O): void
  }
  interface Transformer<I = any, O = any> {
    transform?: (
      chunk: I,
      controller: TransformStreamDefaultController<O>
    ) => void | PromiseLike<void>
    flush?: (controller: TransformStreamDefaultController<O>) => void | PromiseLike<void>
  }
  interface TransformStream<I = any, O = any> {
    readonly readable: ReadableStream<O>
    readonly writable: WritableStream<I>
  }
  const TransformStream: {
    new <I = any, O = any>(transformer?: Transformer<I, O>): TransformStream<I, O>
  }
}
