/**
 * @module tools/formats
 * A dialect's tools in each model provider's tool-definition format, from the same zod schemas.
 */
import { z } from 'zod'
import type { ToolSpec } from '../dialects/types.js'

export const TOOL_FORMATS = ['anthropic', 'openai', 'openai-responses', 'gemini', 'mcp'] as const
export type ToolFormat = (typeof TOOL_FORMATS)[number]

type JsonSchema = Record<string, unknown>

const schemaCache = new WeakMap<z.ZodType, JsonSchema>()

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
 * One tool in one provider format.
 * @param spec - the tool
 * @param format - the provider format
 */
export function formatTool(spec: ToolSpec, format: ToolFormat): Record<string, unknown> {
  const { name, description } = spec
  const schema = toolInputSchema(spec)
  switch (format) {
    case 'anthropic':
      return { name, description, input_schema: schema }
    case 'openai':
      return { type: 'function', function: { name, description, parameters: schema } }
    case 'openai-responses':
      return { type: 'function', name, description, parameters: schema }
    case 'gemini':
      return { name, description, parameters: schema }
    case 'mcp':
      return { name, description, inputSchema: schema }
  }
}
