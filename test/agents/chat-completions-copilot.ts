/**
 * A scripted OpenAI chat-completions stand-in (`POST /v1/chat/completions`, SSE when `stream`) on
 * 127.0.0.1, for GitHub Copilot CLI in BYOK mode (`COPILOT_PROVIDER_TYPE=openai`). model-api.ts
 * speaks Anthropic Messages, Responses and Gemini only; this file is Copilot's own so the other
 * agents' stand-ins stay as they are.
 *
 * As in model-api.ts: the conversation names its script in its prompt (`script=<name>`), the turn
 * played is chosen by how many tool results came back (`chooseTurn`), and every tool result is
 * recorded next to the call that asked for it (the ground truth the e2e test compares with).
 * A request without the mark (a side request) gets a short text answer.
 */
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { chooseTurn, type ToolExchange } from './model-api.js'
import type { Script, ScriptTurn } from './scripts.js'

/** One request the stand-in got. */
export interface ChatRequestRecord {
  path: string
  script: string | null
  toolResults: number
  turn: number | null
  body: unknown
}

/** The running stand-in. */
export interface ChatCompletionsApi {
  url: string
  requests: ChatRequestRecord[]
  /** Every call made, in order, with the CLI's result text once it came back. */
  exchanges(script?: string): ToolExchange[]
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
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        typeof part === 'object' &&
        part !== null &&
        typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : ''
      )
      .join('\n')
  }
  return ''
}

const chunk = (id: string, model: string, delta: object, finish: string | null) =>
  `data: ${JSON.stringify({
    id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`

/** The SSE frames of one turn: its text, then its tool calls, then the finish and usage. */
function frames(turn: ScriptTurn, ids: string[], model: string, seq: number): string {
  const id = `chatcmpl-copilot-${seq}`
  let out = chunk(id, model, { role: 'assistant', content: '' }, null)
  if (turn.text) out += chunk(id, model, { content: turn.text }, null)
  ;(turn.calls ?? []).forEach((call, index) => {
    out += chunk(
      id,
      model,
      {
        tool_calls: [
          {
            index,
            id: ids[index],
            type: 'function',
            function: { name: call.name, arguments: call.arguments ?? JSON.stringify(call.input) },
          },
        ],
      },
      null
    )
  })
  out += chunk(id, model, {}, turn.calls?.length ? 'tool_calls' : 'stop')
  out += `data: ${JSON.stringify({
    id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
  })}\n\n`
  return out + 'data: [DONE]\n\n'
}

/** A non-streamed answer (a side request that asked for no stream). */
function completion(text: string, model: string, seq: number) {
  return {
    id: `chatcmpl-copilot-${seq}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  }
}

interface ChatRequest {
  messages?: ChatMessage[]
  model?: string
  stream?: boolean
}

function parseRequest(text: string): ChatRequest | null {
  try {
    return text ? (JSON.parse(text) as ChatRequest) : null
  } catch {
    return null
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const part of req) chunks.push(part as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Starts the stand-in on a free port of 127.0.0.1.
 * @param scripts - the scripts it can play, by name
 */
export async function startChatCompletions(
  scripts: Record<string, Script>
): Promise<ChatCompletionsApi> {
  const requests: ChatRequestRecord[] = []
  const exchanges = new Map<string, ToolExchange>()
  let seq = 0

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const text = await readBody(req)
    const body = parseRequest(text)
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const record: ChatRequestRecord = {
      path: url.pathname,
      script: null,
      toolResults: 0,
      turn: null,
      body,
    }
    requests.push(record)
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4.1', object: 'model' }] }))
      return
    }
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions') || !body) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: 'not found' } }))
      return
    }
    const model = body.model ?? 'gpt-4.1'
    const messages = body.messages ?? []
    let scriptName: string | null = null
    const results: { id: string; text: string }[] = []
    for (const message of messages) {
      if (message.role === 'user' && scriptName === null) {
        scriptName = SCRIPT_MARK.exec(textOf(message.content))?.[1] ?? null
      }
      if (message.role === 'tool' && message.tool_call_id) {
        results.push({ id: message.tool_call_id, text: textOf(message.content) })
      }
    }
    const script = scriptName ? scripts[scriptName] : undefined
    record.script = scriptName
    record.toolResults = results.length
    seq++
    if (!script) {
      const answer = 'OK.'
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.end(frames({ text: answer }, [], model, seq))
      } else {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(completion(answer, model, seq)))
      }
      return
    }
    for (const result of results) {
      const exchange = exchanges.get(result.id)
      if (exchange && exchange.result === undefined) exchange.result = result.text
    }
    const turn = chooseTurn(script, results.length)
    record.turn = turn
    const spec = script.turns[turn]
    const ids = (spec.calls ?? []).map(
      (_, i) => `call_${script.name.replace(/-/g, '_')}_${turn}_${i}`
    )
    ;(spec.calls ?? []).forEach((call, i) => {
      if (!exchanges.has(ids[i])) {
        exchanges.set(ids[i], {
          protocol: 'responses',
          script: script.name,
          id: ids[i],
          name: call.name,
          input: call.input,
          turn,
          index: i,
        })
      }
    })
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.end(frames(spec, ids, model, seq))
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500)
      res.end(String(error))
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    exchanges: (script) =>
      [...exchanges.values()].filter((e) => script === undefined || e.script === script),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
