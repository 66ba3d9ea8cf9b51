/**
 * The OpenAPI contract as a test oracle: does a response the server gave match what the served
 * document (openapi/openapi.json) says of its route and status? Used by the contract unit test
 * and by the recorder every e2e file installs (server-process.ts).
 */
import { readFileSync } from 'node:fs'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'

const DOC_ID = 'https://agent-todos.dev/openapi.json'

type Json = Record<string, any>

/** One response as a client received it. */
export interface RecordedResponse {
  method: string
  /** The URL path, without the query. */
  path: string
  status: number
  contentType: string | null
  /** The body text; undefined for a stream that was not read. */
  body?: string
}

interface Operation {
  method: string
  template: string
  pattern: RegExp
  responses: Json
}

/** Rewrites the document's local refs so they resolve against the registered document. */
function absolutise(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(absolutise)
  if (typeof schema !== 'object' || schema === null) return schema
  const out: Json = {}
  for (const [key, value] of Object.entries(schema)) {
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith('#')
        ? DOC_ID + value
        : absolutise(value)
  }
  return out
}

/** A validator of responses against one OpenAPI document. */
export function contractOf(document: Record<string, unknown>) {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true })
  ajv.addSchema({ $id: DOC_ID, components: document.components as Json })
  const operations: Operation[] = []
  for (const [template, item] of Object.entries<Json>(document.paths as Json)) {
    const pattern = new RegExp(
      '^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/{[^}]+}/g, '[^/]+') + '$'
    )
    for (const [method, operation] of Object.entries<Json>(item)) {
      operations.push({
        method: method.toUpperCase(),
        template,
        pattern,
        responses: operation.responses,
      })
    }
  }
  const compiled = new Map<object, ValidateFunction>()
  const validatorOf = (schema: object) => {
    let validate = compiled.get(schema)
    if (!validate) compiled.set(schema, (validate = ajv.compile(absolutise(schema) as object)))
    return validate
  }

  return {
    /** Whether the document describes this path at all (other routes are not its business). */
    documents(path: string): boolean {
      return operations.some((op) => op.pattern.test(path))
    },

    /**
     * The ways a response breaks the document; empty when it matches (or its path is not
     * documented).
     */
    check(response: RecordedResponse): string[] {
      const onPath = operations.filter((op) => op.pattern.test(response.path))
      if (onPath.length === 0) return []
      const where = `${response.method} ${response.path} → ${response.status}`
      const method = response.method === 'HEAD' ? 'GET' : response.method
      const operation = onPath.find((op) => op.method === method)
      if (!operation) {
        // a method the path lacks gets what middleware answers on the whole path (405, 413, …):
        // a status every operation there documents
        return onPath.every((op) => op.responses[String(response.status)])
          ? []
          : [`${where}: no operation for ${method} ${onPath[0].template}`]
      }
      const documented = operation.responses[String(response.status)]
      if (!documented) {
        return [
          `${where}: status ${response.status} is not documented for ${method} ${operation.template}`,
        ]
      }
      const content: Json | undefined = documented.content
      if (!content || Object.keys(content).length === 0) {
        return response.body ? [`${where}: documented without a body, but one came`] : []
      }
      const mediaType = (response.contentType ?? '').split(';')[0].trim().toLowerCase()
      const entry = content[mediaType]
      if (!entry) {
        return [
          `${where}: content type '${mediaType}' is not documented (${Object.keys(content).join(', ')})`,
        ]
      }
      if (response.method === 'HEAD' || response.body === undefined || !/json/.test(mediaType))
        return []
      let value: unknown
      try {
        value = JSON.parse(response.body)
      } catch {
        return [`${where}: the ${mediaType} body is not JSON`]
      }
      const validate = validatorOf(entry.schema)
      if (validate(value)) return []
      return (validate.errors ?? []).map(
        (e) => `${where}: body${e.instancePath} ${e.message} (${e.schemaPath})`
      )
    },
  }
}

export type Contract = ReturnType<typeof contractOf>

/** The committed document, which the server serves as `/openapi.json`. */
export function servedContract(): Contract {
  const path = new URL('../openapi/openapi.json', import.meta.url)
  return contractOf(JSON.parse(readFileSync(path, 'utf8')))
}
