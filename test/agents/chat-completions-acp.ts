/**
 * A scripted stand-in of the OpenAI Chat Completions API (`POST /v1/chat/completions`, streamed
 * as SSE chunks with `stream_options.include_usage`, or one JSON reply) on 127.0.0.1, for the
 * agents that speak it (Qwen Code). Written for the ACP end-to-end test; model-api.ts has the
 * other protocols.
 *
 * The conversation carrying `mark` in a user message plays `turns`: turn n once the tool results
 * of turns 0..n-1 are all back (so a retried request replays its turn). Every other request (a
 * side call: a title, a suggestion) gets a short text. Each tool call and the tool message that
 * answered it are recorded: the agent's own tool results, the ground truth of the test.
 */
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ChatCall {
  name: string
  input: Record<string, unknown>
}

export interface ChatTurn {
  text?: string
  calls?: ChatCall[]
}

export interface ChatExchange extends ChatCall {
  id: string
  turn: number
  /** The tool message's text, once it came back. */
  result?: string
}

export interface ChatApi {
  url: string
  /** Every request body, in arrival order. */
  requests: unknown[]
  exchanges(): ChatExchange[]
  close(): Promise<void>
}

type Message = { role?: string; content?: unknown; tool_call_id?: string }

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: string }) => part?.text ?? '').join('\n')
      : ''

/**
 * Starts the stand-in.
 * @param mark - the text that marks the scripted conversation (in its user prompt)
 * @param turns - what the model answers, turn by turn
 */
export async function startChatCompletionsApi(
  mark: string,
  turns: readonly ChatTurn[]
): Promise<ChatApi> {
  const requests: unknown[] = []
  const calls = new Map<string, ChatExchange>()
  const callId = (turn: number, index: number) => `call_acp_${turn}_${index}`
  const callsBefore = (turn: number) =>
    turns.slice(0, turn).reduce((n, t) => n + (t.calls?.length ?? 0), 0)

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      let body: { messages?: Message[]; stream?: boolean; model?: string } = {}
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        // not JSON: answered below as a side call
      }
      requests.push(body)
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}')
        return
      }
      const messages = body.messages ?? []
      const scripted = messages.some((m) => m.role === 'user' && textOf(m.content).includes(mark))
      let turn: ChatTurn = { text: 'OK.' }
      let turnIndex = -1
      if (scripted) {
        const results = messages.filter((m) => m.role === 'tool')
        for (const m of results) {
          const call = m.tool_call_id ? calls.get(m.tool_call_id) : undefined
          if (call) call.result = textOf(m.content)
        }
        turnIndex = 0
        for (let i = 0; i < turns.length; i++) if (callsBefore(i) <= results.length) turnIndex = i
        turn = turns[turnIndex]
        turn.calls?.forEach((call, index) => {
          const id = callId(turnIndex, index)
          if (!calls.has(id)) calls.set(id, { ...call, id, turn: turnIndex })
        })
      }
      const model = body.model ?? 'qwen3-coder-plus'
      const toolCalls = (turn.calls ?? []).map((call, index) => ({
        index,
        id: callId(turnIndex, index),
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.input) },
      }))
      const finish = toolCalls.length ? 'tool_calls' : 'stop'
      const base = { id: `chatcmpl-${requests.length}`, created: 1_764_000_000, model }
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [
              {
                index: 0,
                message: {
                  role: 'assistant',
                  content: turn.text ?? null,
                  ...(toolCalls.length
                    ? { tool_calls: toolCalls.map(({ index: _i, ...call }) => call) }
                    : {}),
                },
                finish_reason: finish,
              },
            ],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          })
        )
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
        res.write(
          `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`
        )
      send([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])
      if (turn.text) send([{ index: 0, delta: { content: turn.text }, finish_reason: null }])
      if (toolCalls.length)
        send([{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: null }])
      send([{ index: 0, delta: {}, finish_reason: finish }])
      send([], { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })
      res.end('data: [DONE]\n\n')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    exchanges: () => [...calls.values()],
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
