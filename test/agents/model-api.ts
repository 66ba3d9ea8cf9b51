/**
 * A scripted stand-in of the three model APIs the real agent CLIs call, on 127.0.0.1:
 * Anthropic Messages (`POST /v1/messages`, SSE), OpenAI Responses (`POST /v1/responses`, SSE) and
 * Gemini (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`, plus `:generateContent`).
 *
 * A conversation names its script in its prompt (`script=<name>`). The turn to play is chosen by how
 * many tool results the CLI has sent back so far, so a retried request gets the same turn again.
 * Every tool result the CLI sends is recorded next to the call that asked for it: that record is
 * what the agent's own tool said, the ground truth the end-to-end tests compare the service with.
 */
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SCRIPTS, type Script, type ScriptTurn } from './scripts.js'

export type Protocol = 'anthropic' | 'responses' | 'gemini'

/** Who made a tool call: these protocols, or the Chat Completions stand-in (chat-completions.ts). */
export type ExchangeProtocol = Protocol | 'chat'

/** One tool call the stand-in made, and what the CLI answered. */
export interface ToolExchange {
  protocol: ExchangeProtocol
  script: string
  /** The call id the stand-in gave (Gemini: the functionCall id). */
  id: string
  name: string
  input: Record<string, unknown>
  /** Index of the turn that made the call, and of the call in it. */
  turn: number
  index: number
  /** The tool result's text as the CLI sent it; undefined until it came back. */
  result?: string
  isError?: boolean
}

export interface ApiRequestRecord {
  protocol: Protocol | 'other'
  method: string
  path: string
  script: string | null
  toolResults: number
  turn: number | null
  /** The parsed request body. */
  body: unknown
  headers: Record<string, string | string[] | undefined>
}

export interface ModelApi {
  url: string
  port: number
  requests: ApiRequestRecord[]
  /** Every call made, in script order, with its result once seen. */
  exchanges(script?: string): ToolExchange[]
  close(): Promise<void>
}

/** How a prompt names its script: `script=<name>`. */
export const SCRIPT_MARK = /script=([a-z0-9-]+)/

/** Calls made before turn `turn`, i.e. the tool results that must be back to play it. */
function callsBefore(script: Script, turn: number): number {
  let n = 0
  for (let i = 0; i < turn; i++) n += script.turns[i].calls?.length ?? 0
  return n
}

/** The turn to play once `results` tool results came back: the last turn they have reached. */
export function chooseTurn(script: Script, results: number): number {
  let turn = 0
  for (let i = 0; i < script.turns.length; i++) if (callsBefore(script, i) <= results) turn = i
  return turn
}

const callId = (protocol: ExchangeProtocol, script: string, turn: number, index: number) => {
  const tag = `${script.replace(/-/g, '_')}_${turn}_${index}`
  if (protocol === 'anthropic') return `toolu_${tag}`
  if (protocol === 'responses' || protocol === 'chat') return `call_${tag}`
  return `gem_${tag}`
}

/** A message's content as text: strings as they are, text blocks' text, other blocks as JSON. */
export const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content
  if (Array.isArray(content))
    return content
      .map((block: any) =>
        block?.type === 'text' && typeof block.text === 'string'
          ? block.text
          : typeof block === 'string'
            ? block
            : JSON.stringify(block)
      )
      .join('\n')
  if (content === undefined || content === null) return ''
  return JSON.stringify(content)
}

/** A request's script mark and the tool results its conversation carries. */
export interface Parsed {
  script: string | null
  /** tool results in the conversation: call id → text, error flag */
  results: { id: string; name?: string; text: string; isError: boolean }[]
}

/** Finds the script mark in the conversation's user text and collects its tool results. */
function parseAnthropic(body: any): Parsed {
  let script: string | null = null
  const results: Parsed['results'] = []
  for (const message of body?.messages ?? []) {
    if (message.role !== 'user') continue
    const blocks =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : (message.content ?? [])
    for (const block of blocks) {
      if (block.type === 'text' && script === null)
        script = SCRIPT_MARK.exec(block.text)?.[1] ?? null
      if (block.type === 'tool_result')
        results.push({
          id: block.tool_use_id,
          text: textOf(block.content),
          isError: block.is_error === true,
        })
    }
  }
  return { script, results }
}

function parseResponses(body: any): Parsed {
  let script: string | null = null
  const results: Parsed['results'] = []
  const input =
    typeof body?.input === 'string' ? [{ role: 'user', content: body.input }] : body?.input
  for (const item of input ?? []) {
    if (item.type === 'function_call_output') {
      const output = item.output
      const text = typeof output === 'string' ? output : textOf(output?.content ?? output)
      results.push({ id: item.call_id, text, isError: output?.success === false })
      continue
    }
    if (item.role === 'user' && script === null) {
      const text = textOf(
        Array.isArray(item.content)
          ? item.content.map((c: any) => ({ type: 'text', text: c.text ?? '' }))
          : item.content
      )
      script = SCRIPT_MARK.exec(text)?.[1] ?? null
    }
  }
  return { script, results }
}

function parseGemini(body: any): Parsed {
  let script: string | null = null
  const results: Parsed['results'] = []
  for (const content of body?.contents ?? []) {
    for (const part of content.parts ?? []) {
      if (content.role === 'user' && typeof part.text === 'string' && script === null)
        script = SCRIPT_MARK.exec(part.text)?.[1] ?? null
      if (part.functionResponse) {
        const response = part.functionResponse.response ?? {}
        const isError = response.error !== undefined
        const value = isError ? response.error : (response.output ?? response)
        results.push({
          id: part.functionResponse.id ?? '',
          name: part.functionResponse.name,
          text: typeof value === 'string' ? value : JSON.stringify(value),
          isError,
        })
      }
    }
  }
  return { script, results }
}

/** Server-Sent Events, one `event:`/`data:` pair per frame (Gemini sends `data:` only). */
function sse(res: ServerResponse, frames: { event?: string; data: unknown }[]) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  })
  for (const frame of frames)
    res.write(
      `${frame.event ? `event: ${frame.event}\n` : ''}data: ${JSON.stringify(frame.data)}\n\n`
    )
  res.end()
}

function anthropicFrames(turn: ScriptTurn, ids: string[], model: string, seq: number) {
  const id = `msg_standin_${seq}`
  const frames: { event: string; data: unknown }[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: 10,
            output_tokens: 1,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        },
      },
    },
  ]
  let index = 0
  const block = (start: unknown, delta: unknown) => {
    frames.push({
      event: 'content_block_start',
      data: { type: 'content_block_start', index, content_block: start },
    })
    frames.push({
      event: 'content_block_delta',
      data: { type: 'content_block_delta', index, delta },
    })
    frames.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } })
    index++
  }
  if (turn.text) block({ type: 'text', text: '' }, { type: 'text_delta', text: turn.text })
  ;(turn.calls ?? []).forEach((call, i) =>
    block(
      { type: 'tool_use', id: ids[i], name: call.name, input: {} },
      { type: 'input_json_delta', partial_json: JSON.stringify(call.input) }
    )
  )
  frames.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: turn.calls?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: 20 },
    },
  })
  frames.push({ event: 'message_stop', data: { type: 'message_stop' } })
  return frames
}

function responsesFrames(turn: ScriptTurn, ids: string[], seq: number) {
  const id = `resp_standin_${seq}`
  const frames: { event: string; data: any }[] = [
    { event: 'response.created', data: { type: 'response.created', response: { id } } },
  ]
  let outputIndex = 0
  const item = (value: unknown) => {
    frames.push({
      event: 'response.output_item.done',
      data: { type: 'response.output_item.done', output_index: outputIndex++, item: value },
    })
  }
  if (turn.text)
    item({
      type: 'message',
      role: 'assistant',
      id: `msg_standin_${seq}`,
      status: 'completed',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }],
    })
  ;(turn.calls ?? []).forEach((call, i) =>
    item({
      type: 'function_call',
      id: `fc_standin_${seq}_${i}`,
      call_id: ids[i],
      name: call.name,
      arguments: call.arguments ?? JSON.stringify(call.input),
      status: 'completed',
    })
  )
  frames.push({
    event: 'response.completed',
    data: {
      type: 'response.completed',
      response: {
        id,
        usage: {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 20,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 30,
        },
      },
    },
  })
  return frames
}

function geminiFrames(turn: ScriptTurn, ids: string[], model: string) {
  const parts: unknown[] = []
  if (turn.text) parts.push({ text: turn.text })
  ;(turn.calls ?? []).forEach((call, i) =>
    parts.push({ functionCall: { id: ids[i], name: call.name, args: call.input } })
  )
  return [
    {
      data: {
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 20, totalTokenCount: 30 },
        modelVersion: model,
      },
    },
  ]
}

/** The request's body as text. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Records the tool results of a scripted conversation next to the calls that asked for them,
 * chooses the turn they reached, and records that turn's calls (once: a retry replays them).
 * @param exchanges - the stand-in's calls by id, updated in place
 * @returns the turn to play, its spec and its call ids
 */
export function playTurn(
  exchanges: Map<string, ToolExchange>,
  protocol: ExchangeProtocol,
  script: Script,
  results: Parsed['results']
): { turn: number; spec: ScriptTurn; ids: string[] } {
  for (const result of results) {
    const exchange =
      exchanges.get(result.id) ??
      // Gemini may answer under its own call id: match the oldest unanswered call of that name
      [...exchanges.values()].find(
        (e) =>
          e.protocol === protocol &&
          e.script === script.name &&
          e.result === undefined &&
          e.name === result.name
      )
    if (exchange && exchange.result === undefined) {
      exchange.result = result.text
      exchange.isError = result.isError
    }
  }
  const turn = chooseTurn(script, results.length)
  const spec = script.turns[turn]
  const ids = (spec.calls ?? []).map((_, i) => callId(protocol, script.name, turn, i))
  ;(spec.calls ?? []).forEach((call, i) => {
    if (!exchanges.has(ids[i]))
      exchanges.set(ids[i], {
        protocol,
        script: script.name,
        id: ids[i],
        name: call.name,
        input: call.input,
        turn,
        index: i,
      })
  })
  return { turn, spec, ids }
}

/** The recorded calls of one script (or all), in script order. */
export function exchangesOf(exchanges: Map<string, ToolExchange>, script?: string): ToolExchange[] {
  return [...exchanges.values()]
    .filter((e) => script === undefined || e.script === script)
    .sort((a, b) => a.turn - b.turn || a.index - b.index)
}

/** A stand-in's HTTP server on a free port of 127.0.0.1. */
export async function listen(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>
): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => void handle(req, res))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close').catch(() => {})
    },
  }
}

/**
 * Starts the stand-in on a free port of 127.0.0.1.
 * @param scripts - the scripts it can play (default: every script of scripts.ts)
 */
export async function startModelApi(scripts: Record<string, Script> = SCRIPTS): Promise<ModelApi> {
  const requests: ApiRequestRecord[] = []
  const exchanges = new Map<string, ToolExchange>()
  let seq = 0

  const play = (protocol: Protocol, parsed: Parsed, model: string) => {
    const script = parsed.script ? scripts[parsed.script] : undefined
    if (!script) return { turn: null, frames: null }
    const { turn, spec, ids } = playTurn(exchanges, protocol, script, parsed.results)
    seq++
    const frames =
      protocol === 'anthropic'
        ? anthropicFrames(spec, ids, model, seq)
        : protocol === 'responses'
          ? responsesFrames(spec, ids, seq)
          : geminiFrames(spec, ids, model)
    return { turn, frames }
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const text = await readBody(req)
    let body: any
    try {
      body = text ? JSON.parse(text) : null
    } catch {
      body = text
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const record: ApiRequestRecord = {
      protocol: 'other',
      method: req.method ?? '',
      path: url.pathname + url.search,
      script: null,
      toolResults: 0,
      turn: null,
      body,
      headers: req.headers,
    }
    requests.push(record)
    if (req.method !== 'POST') {
      res.writeHead(404).end()
      return
    }
    let protocol: Protocol | null = null
    let parsed: Parsed = { script: null, results: [] }
    let model = 'stand-in'
    if (url.pathname === '/v1/messages') {
      protocol = 'anthropic'
      parsed = parseAnthropic(body)
      model = body?.model ?? model
    } else if (url.pathname === '/v1/responses') {
      protocol = 'responses'
      parsed = parseResponses(body)
    } else if (url.pathname.startsWith('/v1beta/models/')) {
      protocol = 'gemini'
      parsed = parseGemini(body)
      model = /models\/([^:]+):/.exec(url.pathname)?.[1] ?? model
      if (url.pathname.endsWith(':generateContent')) {
        // Gemini CLI's model router asks for a JSON verdict; any complexity score will do
        record.protocol = 'gemini'
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            candidates: [
              {
                content: {
                  role: 'model',
                  parts: [
                    {
                      text: JSON.stringify({
                        complexity_reasoning: 'scripted',
                        complexity_score: 1,
                      }),
                    },
                  ],
                },
                finishReason: 'STOP',
                index: 0,
              },
            ],
            usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
          })
        )
        return
      }
    }
    if (!protocol) {
      res.writeHead(404).end()
      return
    }
    record.protocol = protocol
    record.script = parsed.script
    record.toolResults = parsed.results.length
    const { turn, frames } = play(protocol, parsed, model)
    record.turn = turn
    if (!frames) {
      // a side request (no script mark): a plain answer, no tools
      const plain: ScriptTurn = { text: 'OK' }
      sse(
        res,
        protocol === 'anthropic'
          ? anthropicFrames(plain, [], model, ++seq)
          : protocol === 'responses'
            ? responsesFrames(plain, [], ++seq)
            : geminiFrames(plain, [], model)
      )
      return
    }
    sse(res, frames)
  }
  const server = await listen(handle)
  return {
    ...server,
    requests,
    exchanges: (script) => exchangesOf(exchanges, script),
  }
}
