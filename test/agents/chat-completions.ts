/**
 * A scripted stand-in of the OpenAI Chat Completions API on 127.0.0.1, for the agent CLIs that
 * speak it: opencode and Kilo (`@ai-sdk/openai-compatible`), Qwen Code (also as `qwen --acp`) and
 * GitHub Copilot CLI in BYOK mode (`COPILOT_PROVIDER_TYPE=openai`). Their base URL is `${url}/v1`.
 *
 * - `POST …/chat/completions`: streamed as SSE `chat.completion.chunk`s (text, each call whole in
 *   one delta, the finish, a usage chunk with no choices) ending in `data: [DONE]`, or one
 *   `chat.completion` JSON when the request did not ask for a stream.
 * - `GET …/models`: a one-model list (Copilot asks for it).
 *
 * It plays model-api.ts's scripts with model-api.ts's bookkeeping (`playTurn`): the conversation
 * names its script in a user message (`script=<name>`), the turn played is chosen by how many tool
 * results (`role: "tool"` messages) came back, so a retried request replays its turn, and each
 * tool result is recorded next to the call that asked for it (`protocol: "chat"`; Chat Completions
 * has no error flag, so `isError` is false and the tool's text says it). A side request (no
 * script, or no tools offered: a title, a suggestion) gets a short plain answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  listen,
  exchangesOf,
  playTurn,
  readBody,
  SCRIPT_MARK,
  textOf,
  type Parsed,
  type ToolExchange,
} from './model-api.js'
import type { Script, ScriptTurn } from './scripts.js'

/** One request the stand-in got. */
export interface ChatRequestRecord {
  method: string
  path: string
  script: string | null
  toolResults: number
  turn: number | null
  /** Whether the request offered tools (opencode's title call does not). */
  tools: boolean
  /** The parsed request body. */
  body: unknown
  headers: Record<string, string | string[] | undefined>
}

/** A tool call of this stand-in (`protocol: "chat"`), with the CLI's result text once seen. */
export type ChatExchange = ToolExchange

export interface ChatCompletionsApi {
  /** The base URL; the CLIs' own base URL setting is `${url}/v1`. */
  url: string
  port: number
  requests: ChatRequestRecord[]
  /** Every call made, in script order, with the CLI's result text once seen. */
  exchanges(script?: string): ChatExchange[]
  close(): Promise<void>
}

interface ChatRequest {
  messages?: { role?: string; content?: unknown; tool_call_id?: string }[]
  tools?: unknown[]
  model?: string
  stream?: boolean
}

/** The script mark of the conversation's first user message that has one, and its tool results. */
function parseChat(body: ChatRequest | null): Parsed {
  let script: string | null = null
  const results: Parsed['results'] = []
  for (const message of body?.messages ?? []) {
    if (message.role === 'user' && script === null)
      script = SCRIPT_MARK.exec(textOf(message.content))?.[1] ?? null
    if (message.role === 'tool')
      results.push({
        id: message.tool_call_id ?? '',
        text: textOf(message.content),
        isError: false,
      })
  }
  return { script, results }
}

const USAGE = { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 }

const toolCalls = (turn: ScriptTurn, ids: string[]) =>
  (turn.calls ?? []).map((call, i) => ({
    id: ids[i],
    type: 'function',
    function: { name: call.name, arguments: call.arguments ?? JSON.stringify(call.input) },
  }))

/** The chunks of one turn: its text, then each call whole in one delta, the finish, the usage. */
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
  return [
    delta({ role: 'assistant', content: '' }),
    ...(turn.text ? [delta({ content: turn.text })] : []),
    ...toolCalls(turn, ids).map((call, index) => delta({ tool_calls: [{ index, ...call }] })),
    delta({}, turn.calls?.length ? 'tool_calls' : 'stop'),
    { ...base, choices: [], usage: USAGE },
  ]
}

/** The same turn as one non-streamed `chat.completion`. */
function completion(turn: ScriptTurn, ids: string[], model: string, seq: number) {
  const calls = toolCalls(turn, ids)
  return {
    id: `chatcmpl-standin-${seq}`,
    object: 'chat.completion',
    created: 1_764_000_000 + seq,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.text ?? null,
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        finish_reason: calls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: USAGE,
  }
}

function answer(
  res: ServerResponse,
  stream: boolean,
  turn: ScriptTurn,
  ids: string[],
  model: string,
  seq: number
) {
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(completion(turn, ids, model, seq)))
    return
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  })
  for (const chunk of chunks(turn, ids, model, seq)) res.write(`data: ${JSON.stringify(chunk)}\n\n`)
  res.end('data: [DONE]\n\n')
}

/**
 * Starts the stand-in on a free port of 127.0.0.1.
 * @param scripts - the scripts it can play, by name
 */
export async function startChatCompletionsApi(
  scripts: Record<string, Script>
): Promise<ChatCompletionsApi>
/**
 * Starts the stand-in with one script, given as the mark its prompt carries and its turns.
 * @param mark - `script=<name>`, in the conversation's user prompt
 * @param turns - what the model answers, turn by turn
 */
export async function startChatCompletionsApi(
  mark: string,
  turns: ScriptTurn[]
): Promise<ChatCompletionsApi>
export async function startChatCompletionsApi(
  scriptsOrMark: Record<string, Script> | string,
  turns: ScriptTurn[] = []
): Promise<ChatCompletionsApi> {
  let scripts = scriptsOrMark as Record<string, Script>
  if (typeof scriptsOrMark === 'string') {
    const name = SCRIPT_MARK.exec(scriptsOrMark)?.[1]
    if (!name) throw new Error(`not a script mark: ${scriptsOrMark}`)
    scripts = { [name]: { name, prompt: scriptsOrMark, turns } }
  }
  const requests: ChatRequestRecord[] = []
  const exchanges = new Map<string, ToolExchange>()
  let seq = 0

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const text = await readBody(req)
    let body: ChatRequest | null
    try {
      body = text ? JSON.parse(text) : null
    } catch {
      body = null
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const parsed = parseChat(body)
    const tools = Array.isArray(body?.tools) && body.tools.length > 0
    const record: ChatRequestRecord = {
      method: req.method ?? '',
      path: url.pathname + url.search,
      script: parsed.script,
      toolResults: parsed.results.length,
      turn: null,
      tools,
      body,
      headers: req.headers,
    }
    requests.push(record)
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4.1', object: 'model' }] }))
      return
    }
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: 'not found' } }))
      return
    }
    const model = typeof body?.model === 'string' ? body.model : 'stand-in'
    const stream = body?.stream === true
    const script = parsed.script ? scripts[parsed.script] : undefined
    seq++
    if (!script || !tools) {
      answer(res, stream, { text: 'OK.' }, [], model, seq)
      return
    }
    const { turn, spec, ids } = playTurn(exchanges, 'chat', script, parsed.results)
    record.turn = turn
    answer(res, stream, spec, ids, model, seq)
  }
  const server = await listen(handle)
  return {
    ...server,
    requests,
    exchanges: (script) => exchangesOf(exchanges, script),
  }
}
