/**
 * A scripted stand-in of the OpenAI Chat Completions API (`POST /v1/chat/completions`, streamed as
 * SSE `chat.completion.chunk` frames ending in `data: [DONE]`), on 127.0.0.1: what agents built on
 * `@ai-sdk/openai-compatible` (opencode, Kilo) call. model-api.ts serves the Anthropic, Responses
 * and Gemini protocols; this one is separate so the agents that need it do not share its state.
 *
 * As in model-api.ts, a conversation names its script in its prompt (`script=<name>`) and the turn
 * to play is chosen by how many tool results (`role: "tool"` messages) came back, so a retried
 * request replays its turn. A request without tools (opencode's title generation) gets a plain
 * answer. Every tool result is recorded next to the call that asked for it.
 */
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { chooseTurn } from './model-api.js'
import type { Script, ScriptTurn } from './scripts.js'

/** One tool call the stand-in made, and what the CLI answered. */
export interface ChatExchange {
  script: string
  id: string
  name: string
  input: Record<string, unknown>
  turn: number
  index: number
  /** The tool message's content as the CLI sent it; undefined until it came back. */
  result?: string
}

export interface ChatRequestRecord {
  path: string
  script: string | null
  toolResults: number
  turn: number | null
  /** Whether the request offered tools (opencode's title call does not). */
  tools: boolean
  body: unknown
  headers: Record<string, string | string[] | undefined>
}

export interface ChatCompletionsApi {
  url: string
  requests: ChatRequestRecord[]
  /** Every call made, in script order, with its result once seen. */
  exchanges(script?: string): ChatExchange[]
  close(): Promise<void>
}

const SCRIPT_MARK = /script=([a-z0-9-]+)/

interface ChatMessage {
  role?: string
  content?: unknown
  tool_call_id?: string
}

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content
  if (Array.isArray(content))
    return content
      .map((part: { type?: string; text?: unknown }) =>
        part?.type === 'text' && typeof part.text === 'string' ? part.text : ''
      )
      .join('\n')
  return ''
}

/** The chunks of one scripted turn: text, then each call's arguments in one delta. */
function turnChunks(turn: ScriptTurn, ids: string[], model: string, seq: number): unknown[] {
  const base = { id: `chatcmpl-standin-${seq}`, object: 'chat.completion.chunk', created: 0, model }
  const chunk = (delta: unknown, finish: string | null = null, usage?: unknown) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  })
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })]
  if (turn.text) chunks.push(chunk({ content: turn.text }))
  ;(turn.calls ?? []).forEach((call, i) =>
    chunks.push(
      chunk({
        tool_calls: [
          {
            index: i,
            id: ids[i],
            type: 'function',
            function: { name: call.name, arguments: call.arguments ?? JSON.stringify(call.input) },
          },
        ],
      })
    )
  )
  chunks.push(
    chunk({}, turn.calls?.length ? 'tool_calls' : 'stop', {
      prompt_tokens: 10,
      completion_tokens: 20,
      total_tokens: 30,
    })
  )
  return chunks
}

function stream(res: ServerResponse, chunks: unknown[]) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  })
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`)
  res.end('data: [DONE]\n\n')
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Starts the stand-in on a free port of 127.0.0.1.
 * @param scripts - the scripts it can play, by name
 */
export async function startChatCompletionsApi(
  scripts: Record<string, Script>
): Promise<ChatCompletionsApi> {
  const requests: ChatRequestRecord[] = []
  const exchanges = new Map<string, ChatExchange>()
  let seq = 0

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const text = await readBody(req)
    let body: { messages?: ChatMessage[]; tools?: unknown[]; model?: string } | null
    try {
      body = text ? JSON.parse(text) : null
    } catch {
      body = null
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const messages = body?.messages ?? []
    const results = messages.filter((m) => m.role === 'tool')
    let scriptName: string | null = null
    for (const message of messages) {
      if (message.role !== 'user') continue
      scriptName = SCRIPT_MARK.exec(textOf(message.content))?.[1] ?? null
      if (scriptName) break
    }
    const tools = Array.isArray(body?.tools) && body.tools.length > 0
    const record: ChatRequestRecord = {
      path: url.pathname,
      script: scriptName,
      toolResults: results.length,
      turn: null,
      tools,
      body,
      headers: req.headers,
    }
    requests.push(record)
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
      res.writeHead(404).end()
      return
    }
    const model = body?.model ?? 'stand-in'
    const script = scriptName ? scripts[scriptName] : undefined
    seq++
    if (!script || !tools) {
      // a side request (title generation, or no script): a plain answer
      stream(res, turnChunks({ text: 'Scripted session' }, [], model, seq))
      return
    }
    for (const result of results) {
      const exchange = result.tool_call_id ? exchanges.get(result.tool_call_id) : undefined
      if (exchange && exchange.result === undefined) exchange.result = textOf(result.content)
    }
    const turn = chooseTurn(script, results.length)
    const spec = script.turns[turn]
    const ids = (spec.calls ?? []).map(
      (_, i) => `call_${script.name.replace(/-/g, '_')}_${turn}_${i}`
    )
    ;(spec.calls ?? []).forEach((call, i) => {
      if (!exchanges.has(ids[i]))
        exchanges.set(ids[i], {
          script: script.name,
          id: ids[i],
          name: call.name,
          input: call.input,
          turn,
          index: i,
        })
    })
    record.turn = turn
    stream(res, turnChunks(spec, ids, model, seq))
  }
  const server = createServer((req, res) => void handle(req, res))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    exchanges: (name) =>
      [...exchanges.values()]
        .filter((e) => name === undefined || e.script === name)
        .sort((a, b) => a.turn - b.turn || a.index - b.index),
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close').catch(() => {})
    },
  }
}
