/**
 * The typed client's types (src/client/schema.ts) from the committed OpenAPI document.
 */
import { readFileSync } from 'node:fs'
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript'

export const CLIENT_TYPES_PATH = new URL('../src/client/schema.ts', import.meta.url)

const OPENAPI_PATH = new URL('../openapi/openapi.json', import.meta.url)

/** openapi/openapi.json as openapi-typescript writes it. */
export async function generateClientTypes(): Promise<string> {
  const document = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as Parameters<typeof openapiTS>[0]
  const ast = await openapiTS(document)
  return COMMENT_HEADER + astToString(ast)
}
