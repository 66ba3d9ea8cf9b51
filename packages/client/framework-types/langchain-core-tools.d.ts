/**
 * `@langchain/core/tools` as src/client/adapters/langchain.ts uses it, for the package's build
 * only (tsconfig.adapters.json maps the module here). Why structural types of our own: the
 * framework is an optional peer, installed for the tests in test/agents/ alone, and the package
 * must build (npm pack) on the root install. The adapter is checked against the real types by
 * `npm run typecheck:providers` (the root tsconfig.adapters.json); the published declarations
 * name the framework's types by module, so a consumer's resolve to the real ones. The type
 * parameters stand in for the real ones by position only.
 */

/** A tool built by {@link tool} (the real class has six type parameters too). */
export declare class DynamicStructuredTool<
  SchemaT = unknown,
  SchemaOutputT = unknown,
  SchemaInputT = unknown,
  ToolOutputT = unknown,
  ToolEventT = unknown,
  NameT extends string = string,
> {
  name: NameT
  description: string
  /** Carries the type parameters (the real class uses them in its members). */
  readonly '~types'?: [SchemaT, SchemaOutputT, SchemaInputT, ToolOutputT, ToolEventT]
}

/** A tool from a function and a JSON schema of its input. */
export declare function tool(
  func: (input: never) => unknown,
  fields: { name: string; description: string; schema: Record<string, unknown> }
): DynamicStructuredTool<Record<string, unknown>, unknown, unknown, unknown, unknown, string>
