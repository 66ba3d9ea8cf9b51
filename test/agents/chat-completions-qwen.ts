/**
 * The Qwen runs' stand-in (its own, written beside opencode's chat-completions.ts at the same time;
 * the two are to be folded into one).
 * A scripted stand-in of the OpenAI chat-completions API (`POST /v1/chat/completions`, streamed as
 * SSE `chat.completion.chunk`s ending in `data: [DONE]`), for the agent CLIs that speak it (Qwen
 * Code; opencode, Copilot and others can reuse it). It plays the same scripts as model-api.ts
 * (`script=<name>` in the first user message; the turn is chosen by how many tool results came
 * back, so a retried request gets the same turn) and records each tool call with the text the CLI
 * answered (`role: "tool"` messages), the ground truth the end-to-end tests compare with.
 *
 * Kept apart from model-api.ts, whose protocols are a closed set other tests switch on.
 */
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { chooseTurn, type ToolExchange } from './model-api.js'
import type { Script, ScriptTurn } from './scripts.js'

const SCRIPT_MARK = /script=([a-z0-9-]+)/

/** One request the stand-in answered. */
export interface ChatRequestRecord {
  path: string
  script: string | null
  toolResults: number
  turn: number | null
  body: unknown
  headers: Record<string, string | string[] | undefined>
}

/** A tool call of this stand-in: `protocol` reads `chat` (model-api's exchanges are the others). */
export type ChatExchange = Omit<ToolExchange, 'protocol'> & { protocol: 'chat' }

export interface ChatCompletionsApi {
  /** The base URL; the CLIs' `OPENAI_BASE_URL` is `${url}/v1`. */
  url: string
  port: number
  requests: ChatRequestRecord[]
  /** Every call made, in script order, with the CLI's result text once seen. */
  exchanges(script?: string): ChatExchange[]
  close(): Promise<void>
}

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
        part?.type === 'text' && typeof part.text === 'string' ? part.text : JSON.stringify(part)
      )
      .join('\n')
  return content === undefined || content === null ? '' : JSON.stringify(content)
}

/** The script mark of the conversation's first user message that has one, and its tool results. */
function parseChat(body: { messages?: ChatMessage[] } | null) {
  let script: string | null = null
  const results: { id: string; text: string }[] = []
  for (const message of body?.messages ?? []) {
    if (message.role === 'user' && script === null)
      script = SCRIPT_MARK.exec(textOf(message.content))?.[1] ?? null
    if (message.role === 'tool')
      results.push({ id: message.tool_call_id ?? '', text: textOf(message.content) })
  }
  return { script, results }
}

/** The chunks of one assistant turn: its text, then each call whole in one delta. */
function chunks(turn: ScriptTurn, ids: string[], model: string, seq: number): unknown[] {
  const base = {
    id: `chatcmpl-standin-${seq}`,
    object: 'chat.completion.chunk',
    created: 1_764_000_000 + seq,
    model,
  }
  const delta = (value: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta: value, finish_reason: finish }],
  })
  const out: unknown[] = [delta({ role: 'assistant', content: '' })]
  if (turn.text) out.push(delta({ content: turn.text }))
  ;(turn.calls ?? []).forEach((call, i) =>
    out.push(
      delta({
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
  out.push(delta({}, turn.calls?.length ? 'tool_calls' : 'stop'))
  out.push({
    ...base,
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
  })
  return out
}

function stream(res: ServerResponse, frames: unknown[]) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  })
  for (const frame of frames) res.write(`data: ${JSON.stringify(frame)}\n\n`)
  res.end('data: [DONE]\n\n')
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = []
  for await (const chunk of req) parts.push(chunk as Buffer)
  return Buffer.concat(parts).toString('utf8')
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
    let body: { messages?: ChatMessage[]; model?: string } | null
    try {
      body = text ? JSON.parse(text) : null
    } catch {
      body = null
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const record: ChatRequestRecord = {
      path: url.pathname + url.search,
      script: null,
      toolResults: 0,
      turn: null,
      body,
      headers: req.headers,
    }
    requests.push(record)
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
      res.writeHead(404).end()
      return
    }
    const model = typeof body?.model === 'string' ? body.model : 'stand-in'
    const parsed = parseChat(body)
    record.script = parsed.script
    record.toolResults = parsed.results.length
    const script = parsed.script ? scripts[parsed.script] : undefined
    seq++
    if (!script) {
      stream(res, chunks({ text: 'OK' }, [], model, seq))
      return
    }
    for (const result of parsed.results) {
      const exchange = exchanges.get(result.id)
      if (exchange && exchange.result === undefined) {
        exchange.result = result.text
        // chat-completions has no error flag: the tool's text says it (truth reads the text)
        exchange.isError = false
      }
    }
    const turn = chooseTurn(script, parsed.results.length)
    record.turn = turn
    const spec = script.turns[turn]
    const ids = (spec.calls ?? []).map(
      (_, i) => `call_${script.name.replace(/-/g, '_')}_${turn}_${i}`
    )
    ;(spec.calls ?? []).forEach((call, i) => {
      if (!exchanges.has(ids[i]))
        exchanges.set(ids[i], {
          protocol: 'chat',
          script: script.name,
          id: ids[i],
          name: call.name,
          input: call.input,
          turn,
          index: i,
        })
    })
    stream(res, chunks(spec, ids, model, seq))
  }
  const server = createServer((req, res) => void handle(req, res))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    port,
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
