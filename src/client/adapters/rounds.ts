/**
 * @module client/adapters/rounds
 * What the framework adapters share: the dialect's todo tools and system-prompt guidance, and the
 * rounds themselves. An adapter hands over each model turn's tool calls (todo and other tools
 * together) as one round; the todo tools then read their results from that round, and the next
 * model call gets the reminder the round's reply carried. No framework is imported here.
 */
import {
  AgentTodosError,
  createAgentTodosClient,
  type AgentTodosClient,
  type DialectName,
  type RoundReply,
  type ToolResult,
  type components,
} from '../index.js'

type Flavour = components['schemas']['Flavour']

/** The options every adapter takes. */
export interface AgentTodosOptions {
  /** The agent-todos server, e.g. `http://localhost:8080`. */
  url: string
  /** A key of the server's `AUTH_KEYS`, when it has keys. */
  key?: string
  /** The conversation's session id (`^[A-Za-z0-9][A-Za-z0-9._:_-]{0,127}$`). */
  sessionId: string
  /** The todo tool's dialect (each adapter has its default). */
  dialect?: DialectName
}

/** A todo tool of the dialect, as `GET /v1/tools?format=openai-responses` serves it. */
export interface TodoToolSpec {
  name: string
  description: string
  parameters: Record<string, unknown>
}

/** One tool call of a model turn, as the framework holds it. */
export interface TurnCall {
  id: string
  name: string
  /** Parsed arguments (an object), or the raw JSON string the model wrote. */
  input: unknown
}

/** The round a model turn became: its reply, or the failure to report it. */
type Pending = Promise<RoundReply>

/**
 * One session's rounds, for one adapter instance. Built by {@link openRounds}.
 */
export class TodoRounds {
  private readonly byCall = new Map<string, Pending>()
  /** Todo calls whose tool ran before their turn was reported (streamed turns). */
  private readonly waiting = new Map<string, (pending: Pending) => void>()
  private last: Pending | undefined
  private reminder: string | null = null

  constructor(
    private readonly client: AgentTodosClient,
    readonly sessionId: string,
    readonly dialect: DialectName,
    private readonly flavour: Flavour | undefined,
    /** The dialect's todo tools. */
    readonly tools: readonly TodoToolSpec[],
    /** The native's system-prompt guidance for the tools, or null where it has none. */
    readonly systemPrompt: string | null
  ) {}

  /** Whether a tool name is one of the dialect's todo tools. */
  isTodoTool(name: string): boolean {
    return this.tools.some((tool) => tool.name === name)
  }

  /**
   * Reports one model turn as one round (a turn without tool calls is not a round). The todo
   * calls' results are then {@link result}'s, and a reminder in the reply waits for
   * {@link takeReminder}.
   * @param calls - every tool call of the turn, in the model's order
   */
  report(calls: readonly TurnCall[]): Promise<RoundReply> | undefined {
    if (calls.length === 0) return undefined
    const pending = this.post(calls)
    // the failure is surfaced by result() / settle(); keep it from being unhandled meanwhile
    pending.catch(() => undefined)
    this.last = pending
    for (const call of calls) {
      const waiter = this.waiting.get(call.id)
      if (waiter) {
        this.waiting.delete(call.id)
        waiter(pending)
      } else if (this.isTodoTool(call.name)) this.byCall.set(call.id, pending)
    }
    return pending
  }

  /**
   * The service's result for one todo call, byte for byte; it waits for the call's turn to be
   * reported when the framework runs a tool before its turn has ended (streaming).
   * @throws AgentTodosError when the round failed
   */
  async result(callId: string): Promise<ToolResult> {
    const pending =
      this.byCall.get(callId) ??
      new Promise<RoundReply>((resolve, reject) =>
        this.waiting.set(callId, (round) => void round.then(resolve, reject))
      )
    const reply = await pending
    this.byCall.delete(callId)
    const found = reply.results.find((result) => result.tool_use_id === callId)
    if (!found) throw new Error(`agent-todos: the round has no result for tool call ${callId}`)
    return found
  }

  /**
   * Waits for the last reported round, so that its reminder is known before the next model call.
   * @throws AgentTodosError when that round failed
   */
  async settle(): Promise<void> {
    const last = this.last
    this.last = undefined
    if (last) await last
  }

  /** The reminder due for the next model call, once: it is handed over a single time per round. */
  takeReminder(): string | null {
    const text = this.reminder
    this.reminder = null
    return text
  }

  private async post(calls: readonly TurnCall[]): Pending {
    const { data, error, response } = await this.client.POST('/v1/sessions/{session_id}/rounds', {
      params: { path: { session_id: this.sessionId } },
      body: {
        dialect: this.dialect,
        ...(this.flavour ? { settings: { flavour: this.flavour } } : {}),
        tool_calls: calls.map((call) =>
          typeof call.input === 'string'
            ? { id: call.id, name: call.name, arguments: call.input }
            : { id: call.id, name: call.name, input: call.input ?? {} }
        ),
      },
    })
    if (!data) throw new AgentTodosError(response.status, error)
    // the reply's notice (a person's edit) reaches the model the way a reminder does
    const texts = [data.notice?.text, data.reminder?.text].filter((text) => !!text)
    this.reminder = texts.length > 0 ? texts.join('\n') : null
    return data
  }
}

/**
 * Connects to the server and loads the dialect's todo tools and system-prompt guidance.
 * @param options - the adapter's options
 * @param defaults - the adapter's default dialect and the flavour it speaks
 * @throws AgentTodosError when the server refuses (an unknown dialect, a bad key)
 */
export async function openRounds(
  options: AgentTodosOptions,
  defaults: { dialect: DialectName; flavour?: Flavour }
): Promise<TodoRounds> {
  const client = createAgentTodosClient({ baseUrl: options.url, apiKey: options.key })
  const dialect = options.dialect ?? defaults.dialect
  // a flavour only means something to the dialect the adapter chose it for
  const flavour = dialect === defaults.dialect ? defaults.flavour : undefined
  const [tools, described] = await Promise.all([
    client.GET('/v1/tools', {
      params: { query: { dialect, format: 'openai-responses', flavour } },
    }),
    client.GET('/v1/dialects/{name}', {
      params: { path: { name: dialect }, query: { flavour } },
    }),
  ])
  if (!tools.data) throw new AgentTodosError(tools.response.status, tools.error)
  if (!described.data) throw new AgentTodosError(described.response.status, described.error)
  const specs = (tools.data as Extract<typeof tools.data, { format: 'openai-responses' }>).tools
  return new TodoRounds(
    client,
    options.sessionId,
    dialect,
    flavour,
    specs.map((tool) => ({
      name: tool.name,
      description: tool.description ?? '',
      parameters: tool.parameters,
    })),
    described.data.system_prompt
  )
}
