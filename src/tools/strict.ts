/**
 * @module tools/strict
 * A tool's input schema in the strict form OpenAI's Structured Outputs and Anthropic's strict
 * tool use accept: every object closed (`additionalProperties: false`) with every property in
 * `required`, the optional ones nullable, and only the keywords both providers enforce.
 *
 * The result is a fixed point of OpenAI's `toStrictJsonSchema` (openai/lib/transform) and needs
 * nothing moved into descriptions by Anthropic's `transformJSONSchema`. A field that cannot be
 * strict (a free-form object such as Claude's `metadata`) is left out: a strict caller cannot
 * send it, and every dialect treats its absence as the native does.
 */

type JsonSchema = Record<string, unknown>

// Annotations and the keywords both strict modes keep; anything else is dropped (OpenAI rejects
// most of it, Anthropic folds it into the description).
const KEPT = new Set(['type', 'description', 'title', 'enum', 'const', 'format'])

const isObject = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** An object schema whose keys are not known up front (`z.record`): it cannot be strict. */
function isFreeForm(schema: JsonSchema): boolean {
  const open = schema.additionalProperties !== undefined && schema.additionalProperties !== false
  return open || schema.propertyNames !== undefined || schema.patternProperties !== undefined
}

/** A union of string literals (`z.enum(...).or(z.literal(...))`) as one enum. */
function literalUnion(branches: unknown[]): JsonSchema | undefined {
  const values: unknown[] = []
  for (const branch of branches) {
    if (!isObject(branch) || branch.type !== 'string') return undefined
    if (Array.isArray(branch.enum)) values.push(...(branch.enum as unknown[]))
    else if (typeof branch.const === 'string') values.push(branch.const)
    else return undefined
  }
  return { type: 'string', enum: values }
}

/** The schema allowing `null` as well, in the form both providers read. */
function nullable(schema: JsonSchema): JsonSchema {
  const { description, ...rest } = schema
  const described = (s: JsonSchema) => (description === undefined ? s : { ...s, description })
  const type = rest.type
  if (typeof type === 'string' && type !== 'object' && type !== 'array') {
    const enumValues = Array.isArray(rest.enum) ? { enum: [...(rest.enum as unknown[]), null] } : {}
    return described({ ...rest, type: [type, 'null'], ...enumValues })
  }
  // objects and arrays: Anthropic reads `items` / `properties` only under a single type
  return described({ anyOf: [rest, { type: 'null' }] })
}

/**
 * One schema node in strict form; undefined when it cannot be strict.
 * @param schema - a node of a tool's input schema
 */
function strictNode(schema: unknown): JsonSchema | undefined {
  if (!isObject(schema)) return undefined
  if (Array.isArray(schema.anyOf)) {
    const merged = literalUnion(schema.anyOf)
    if (merged) return strictNode({ ...merged, description: schema.description })
    const branches = schema.anyOf.map(strictNode)
    if (branches.some((b) => b === undefined)) return undefined
    return withAnnotations({ anyOf: branches }, schema)
  }
  const out = withAnnotations({}, schema)
  for (const key of KEPT) if (key in schema && key !== 'description') out[key] = schema[key]
  if (schema.type === 'object') {
    if (isFreeForm(schema)) return undefined
    const required = new Set(Array.isArray(schema.required) ? schema.required : [])
    const properties: JsonSchema = {}
    for (const [key, value] of Object.entries(
      isObject(schema.properties) ? schema.properties : {}
    )) {
      const child = strictNode(value)
      if (child === undefined) {
        if (required.has(key)) return undefined
        continue
      }
      properties[key] = required.has(key) ? child : nullable(child)
    }
    out.properties = properties
    out.required = Object.keys(properties)
    out.additionalProperties = false
  } else if (schema.type === 'array') {
    const items = strictNode(schema.items)
    if (items === undefined) return undefined
    out.items = items
  }
  return out
}

function withAnnotations(target: JsonSchema, source: JsonSchema): JsonSchema {
  if (source.description !== undefined) target.description = source.description
  return target
}

/**
 * A tool input schema in strict form (see the module comment).
 * @param schema - the tool's input JSON Schema (an object schema)
 * @throws Error when the root itself cannot be strict
 */
export function toStrictSchema(schema: JsonSchema): JsonSchema {
  const strict = strictNode(schema)
  if (strict === undefined || strict.type !== 'object') {
    throw new Error('the tool input schema has no strict form')
  }
  return strict
}
