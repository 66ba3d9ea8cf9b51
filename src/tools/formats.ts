/**
 * @module tools/formats
 * A dialect's tools in each model provider's tool-definition format, from the same zod schemas.
 *
 * - `anthropic`: `{name, description, input_schema}` (Messages API `Tool`)
 * - `openai`: `{type: 'function', function: {name, description, parameters}}` (Chat
 *   Completions `ChatCompletionFunctionTool`)
 * - `openai-responses`: `{type: 'function', name, description, parameters, strict}` (Responses
 *   `FunctionTool`, whose `strict` is required: false unless strict schemas were asked for)
 * - `gemini`: `{name, description, parametersJsonSchema}` (genai `FunctionDeclaration`, as
 *   gemini-cli declares its own tools: `parameters` is Gemini's restricted Schema, not JSON
 *   Schema)
 * - `mcp`: `{name, description, inputSchema}`
 *
 * With `strict`, the openai, openai-responses and anthropic forms carry `strict: true` and the
 * strict form of the schema (`tools/strict`).
 */
import { z } from 'zod'
import type { ToolSpec } from '../dialects/types.js'
import { toStrictSchema } from './strict.js'

export const TOOL_FORMATS = ['anthropic', 'openai', 'openai-responses', 'gemini', 'mcp'] as const
export type ToolFormat = (typeof TOOL_FORMATS)[number]

/** The formats whose providers have a strict mode for tool inputs. */
export const STRICT_FORMATS = ['anthropic', 'openai', 'openai-responses'] as const
export type StrictFormat = (typeof STRICT_FORMATS)[number]

/**
 * Whether a format has a strict mode.
 * @param format - a tool format
 */
export const isStrictFormat = (format: ToolFormat): format is StrictFormat =>
  (STRICT_FORMATS as readonly string[]).includes(format)

type JsonSchema = Record<string, unknown>

const schemaCache = new WeakMap<z.ZodType, JsonSchema>()
const strictCache = new WeakMap<z.ZodType, JsonSchema>()

/**
 * The JSON Schema of a tool's input as a model sees it: draft 2020-12 without the `$schema`
 * marker, which no provider wants inside a tool definition.
 * @param spec - the tool
 */
export function toolInputSchema(spec: ToolSpec): JsonSchema {
  let schema = schemaCache.get(spec.input)
  if (!schema) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(spec.input, { io: 'input' }) as JsonSchema
    schema = rest
    schemaCache.set(spec.input, schema)
  }
  return schema
}

/**
 * The strict form of a tool's input schema (`tools/strict`).
 * @param spec - the tool
 */
export function strictInputSchema(spec: ToolSpec): JsonSchema {
  let schema = strictCache.get(spec.input)
  if (!schema) {
    schema = toStrictSchema(toolInputSchema(spec))
    strictCache.set(spec.input, schema)
  }
  return schema
}

/**
 * One tool in one provider format.
 * @param spec - the tool
 * @param format - the provider format
 * @param options - `strict`: the strict schema and `strict: true` (strict formats only)
 */
export function formatTool(
  spec: ToolSpec,
  format: ToolFormat,
  options: { strict?: boolean } = {}
): Record<string, unknown> {
  const { name, description } = spec
  const strict = options.strict === true && isStrictFormat(format)
  const schema = strict ? strictInputSchema(spec) : toolInputSchema(spec)
  switch (format) {
    case 'anthropic':
      return strict
        ? { name, description, input_schema: schema, strict: true }
        : { name, description, input_schema: schema }
    case 'openai':
      return {
        type: 'function',
        function: strict
          ? { name, description, parameters: schema, strict: true }
          : { name, description, parameters: schema },
      }
    case 'openai-responses':
      return { type: 'function', name, description, parameters: schema, strict }
    case 'gemini':
      return { name, description, parametersJsonSchema: schema }
    case 'mcp':
      return { name, description, inputSchema: schema }
  }
}
