/**
 * The tool definitions `GET /v1/tools` serves, checked against the providers' own SDKs:
 * - every dialect × format (and the strict variants) typechecks as the SDK's tool type
 *   (`ChatCompletionTool`, Responses `FunctionTool`, Anthropic `Tool`, genai
 *   `FunctionDeclaration`, MCP `Tool`): the served JSON is written into a generated .ts file,
 *   each array `satisfies` its type, and tsc checks it;
 * - every `strict=true` schema is a fixed point of OpenAI's `toStrictJsonSchema` and needs
 *   nothing folded into its description by Anthropic's `transformJSONSchema`.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { isDeepStrictEqual } from 'node:util'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { toStrictJsonSchema, transformJSONSchema } from '../agents/provider-sdks.js'
import { DIALECT_NAMES } from '../../src/dialects/registry.js'
import { STRICT_FORMATS, TOOL_FORMATS } from '../../src/tools/formats.js'
import { makeTestApp } from '../helpers.js'

const ROOT = new URL('../..', import.meta.url)
const OUT = new URL('test-artifacts/sdk-types/', ROOT)
/** The SDKs are installed in test/agents/ (scripts/ensure-test-agents.mjs), not at the root. */
const SDKS = new URL('test/agents/node_modules', ROOT)

const SDK_TYPE: Record<string, string> = {
  anthropic: 'AnthropicTool',
  openai: 'ChatCompletionTool',
  'openai-responses': 'FunctionTool',
  gemini: 'FunctionDeclaration',
  mcp: 'McpTool',
}

interface Served {
  dialect: string
  format: string
  strict: boolean
  tools: Record<string, unknown>[]
}

async function serveAll(): Promise<Served[]> {
  const t = makeTestApp()
  const served: Served[] = []
  for (const dialect of DIALECT_NAMES) {
    for (const format of TOOL_FORMATS) {
      const variants = (STRICT_FORMATS as readonly string[]).includes(format)
        ? [false, true]
        : [false]
      for (const strict of variants) {
        const res = await t.call(
          'GET',
          `/v1/tools?dialect=${dialect}&format=${format}&strict=${strict}`
        )
        assert.equal(res.status, 200, `${dialect} ${format} strict=${strict}: ${res.text}`)
        served.push({ dialect, format, strict, tools: res.body.tools })
      }
    }
  }
  return served
}

/** The input schema of one served tool, wherever its format keeps it. */
function schemaOf(format: string, tool: Record<string, any>): Record<string, unknown> {
  switch (format) {
    case 'anthropic':
      return tool.input_schema
    case 'openai':
      return tool.function.parameters
    case 'openai-responses':
      return tool.parameters
    case 'gemini':
      return tool.parametersJsonSchema
    default:
      return tool.inputSchema
  }
}

/** Anthropic's transform drops `type` beside `enum`/`const` (same values); nothing else may change. */
function withoutLiteralTypes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutLiteralTypes)
  if (typeof schema !== 'object' || schema === null) return schema
  const out: Record<string, unknown> = {}
  const literal = 'enum' in schema || 'const' in schema
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && literal) continue
    out[key] = key === 'enum' || key === 'const' ? value : withoutLiteralTypes(value)
  }
  return out
}

describe('GET /v1/tools against the provider SDKs', () => {
  it('Should typecheck every dialect x format (and strict) as the SDK tool types', async () => {
    const served = await serveAll()
    const lines = [
      "import type { ChatCompletionTool } from 'openai/resources/chat/completions'",
      "import type { FunctionTool } from 'openai/resources/responses/responses'",
      "import type { Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages'",
      "import type { FunctionDeclaration } from '@google/genai'",
      "import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'",
      '',
    ]
    served.forEach((s, i) => {
      lines.push(
        `// ${s.dialect} ${s.format}${s.strict ? ' strict' : ''}`,
        `export const tools${i} = ${JSON.stringify(s.tools, null, 2)} satisfies ${SDK_TYPE[s.format]}[]`,
        ''
      )
    })
    mkdirSync(OUT, { recursive: true })
    writeFileSync(new URL('served-tools.ts', OUT), lines.join('\n'))
    // the generated file's imports resolve from here
    rmSync(new URL('node_modules', OUT), { force: true })
    symlinkSync(SDKS, new URL('node_modules', OUT), 'dir')
    writeFileSync(
      new URL('tsconfig.json', OUT),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        // and the typed client's listTools() into the SDK calls, without a cast
        files: ['served-tools.ts', '../../test/agents/provider-tools.ts'],
      })
    )
    const tsc = new URL('node_modules/typescript/bin/tsc', ROOT).pathname
    const run = await promisify(execFile)(
      process.execPath,
      [tsc, '-p', new URL('tsconfig.json', OUT).pathname],
      { cwd: ROOT.pathname }
    ).then(
      () => ({ ok: true, output: '' }),
      (error: Error & { stdout?: string }) => ({
        ok: false,
        output: error.stdout ?? String(error),
      })
    )
    assert.ok(run.ok, `the served tools do not typecheck as the SDK types:\n${run.output}`)
    // a sanity check that the file really holds every combination
    assert.equal(
      served.length,
      DIALECT_NAMES.length * (TOOL_FORMATS.length + STRICT_FORMATS.length)
    )
  })

  it('Should serve strict=true schemas that OpenAI toStrictJsonSchema leaves unchanged', async () => {
    for (const s of await serveAll()) {
      if (!s.strict) continue
      for (const tool of s.tools) {
        const schema = schemaOf(s.format, tool)
        const name = `${s.dialect} ${s.format} ${JSON.stringify(tool).slice(0, 60)}`
        assert.deepEqual(toStrictJsonSchema(schema as never), schema, name)
      }
    }
  })

  it("Should serve strict=true schemas that Anthropic's transformJSONSchema accepts as they are", async () => {
    for (const s of await serveAll()) {
      if (!s.strict) continue
      for (const tool of s.tools) {
        const schema = schemaOf(s.format, tool)
        const transformed = transformJSONSchema(schema)
        assert.ok(
          isDeepStrictEqual(withoutLiteralTypes(transformed), withoutLiteralTypes(schema)),
          `${s.dialect} ${s.format}: Anthropic's transform changed the schema:\n${JSON.stringify(transformed)}`
        )
      }
    }
  })

  it('Should mark strict tools strict: true, and openai-responses tools strict: false otherwise', async () => {
    for (const s of await serveAll()) {
      for (const tool of s.tools as Record<string, any>[]) {
        const flag = s.format === 'openai' ? tool.function.strict : tool.strict
        if (s.strict) assert.equal(flag, true, `${s.dialect} ${s.format}`)
        else if (s.format === 'openai-responses') assert.equal(flag, false, s.dialect)
        else assert.equal(flag, undefined, `${s.dialect} ${s.format}`)
      }
    }
  })

  it('Should refuse strict=true for formats without a strict mode', async () => {
    const t = makeTestApp()
    for (const format of ['gemini', 'mcp']) {
      const res = await t.call('GET', `/v1/tools?dialect=s03&format=${format}&strict=true`)
      assert.equal(res.status, 400)
      assert.equal(res.body.errors[0].pointer, '/query/strict')
    }
  })

  it('Should leave free-form metadata out of the strict Claude task schemas', async () => {
    const t = makeTestApp()
    const res = await t.call('GET', '/v1/tools?dialect=claude-tasks&format=anthropic&strict=true')
    const update = res.body.tools.find((tool: { name: string }) => tool.name === 'TaskUpdate')
    assert.equal('metadata' in update.input_schema.properties, false)
    assert.deepEqual(update.input_schema.required, Object.keys(update.input_schema.properties))
    assert.deepEqual(update.input_schema.properties.owner.type, ['string', 'null'])
  })
})
