/**
 * What the agent's own todo tool said, from the tool results the CLI sent back to the model
 * stand-in (and, for the last call of a Claude run that never asked the model again, from the
 * tool_result frames of its stream-json), reduced to the list the agent holds at the end.
 * The end-to-end tests compare the session the service built with this.
 */
import type { ModelApi, ToolExchange } from './model-api.js'

export interface ExpectedItem {
  /** Only where the agent assigns ids (Claude's Task tools). */
  id?: string
  content: string
  status: string
  active_form?: string
}

/**
 * The stand-in's calls of these scripts, with results filled in from a Claude stream-json stdout
 * where the stand-in never saw them.
 */
export function exchangesWithResults(
  api: ModelApi,
  scripts: string[],
  claudeStdout?: string
): ToolExchange[] {
  const fromStream = new Map<string, { text: string; isError: boolean }>()
  for (const line of claudeStdout?.split('\n') ?? []) {
    let frame: any
    try {
      frame = JSON.parse(line)
    } catch {
      continue
    }
    if (frame?.type !== 'user' || !Array.isArray(frame.message?.content)) continue
    for (const block of frame.message.content) {
      if (block?.type !== 'tool_result') continue
      const text =
        typeof block.content === 'string'
          ? block.content
          : (block.content ?? [])
              .map((c: any) => (c?.type === 'text' ? c.text : JSON.stringify(c)))
              .join('\n')
      fromStream.set(block.tool_use_id, { text, isError: block.is_error === true })
    }
  }
  return scripts
    .flatMap((script) => api.exchanges(script))
    .map((e) => {
      const seen = fromStream.get(e.id)
      return e.result === undefined && seen ? { ...e, result: seen.text, isError: seen.isError } : e
    })
}

const succeeded = (e: ToolExchange) => e.result !== undefined && e.isError === false

/** The list after the last accepted TodoWrite: its input, since the result text is fixed. */
export function expectedTodoWrite(exchanges: ToolExchange[]): ExpectedItem[] {
  const last = exchanges
    .filter((e) => e.name === 'TodoWrite' && succeeded(e))
    .filter((e) => /^Todos have been modified successfully/.test(e.result!))
    .pop()
  if (!last) throw new Error('no accepted TodoWrite')
  return (last.input.todos as { content: string; status: string; activeForm: string }[]).map(
    (t) => ({ content: t.content, status: t.status, active_form: t.activeForm })
  )
}

/**
 * Claude's Task list as its last TaskList result printed it (`#1 [completed] Write …`), checked
 * against the TaskCreate results that assigned those ids.
 */
export function expectedTasks(exchanges: ToolExchange[]): ExpectedItem[] {
  const created = new Map<string, string>()
  for (const e of exchanges.filter((x) => x.name === 'TaskCreate' && succeeded(x))) {
    const match = /^Task #(\S+) created successfully: (.*)$/m.exec(e.result!)
    if (match) created.set(match[1], match[2])
  }
  const list = exchanges.filter((e) => e.name === 'TaskList' && succeeded(e)).pop()
  if (!list) throw new Error('no TaskList result')
  if (list.result === 'No tasks found') return []
  return list.result!.split('\n').map((line) => {
    const match = /^#(\S+) \[(\w+)\] (.*?)(?: \(.*\))?$/.exec(line)
    if (!match) throw new Error(`unexpected TaskList line: ${line}`)
    const [, id, status, content] = match
    if (created.get(id) !== content) throw new Error(`TaskList #${id} was not created as listed`)
    return { id, content, status }
  })
}

/** The plan after the last update_plan Codex answered `Plan updated`. */
export function expectedCodexPlan(exchanges: ToolExchange[]): ExpectedItem[] {
  const last = exchanges
    .filter((e) => e.name === 'update_plan' && succeeded(e) && e.result === 'Plan updated')
    .pop()
  if (!last) throw new Error('no accepted update_plan')
  return (last.input.plan as { step: string; status: string }[]).map((s) => ({
    content: s.step,
    status: s.status,
  }))
}

/** Gemini's list as its last accepted write_todos result printed it (`1. [pending] Write …`). */
export function expectedGeminiTodos(exchanges: ToolExchange[]): ExpectedItem[] {
  const last = exchanges.filter((e) => e.name === 'write_todos' && succeeded(e)).pop()
  if (!last) throw new Error('no accepted write_todos')
  if (/^Successfully cleared/.test(last.result!)) return []
  return last
    .result!.split('\n')
    .slice(1)
    .map((line) => {
      const match = /^\d+\. \[(\w+)\] (.*)$/.exec(line)
      if (!match) throw new Error(`unexpected write_todos line: ${line}`)
      return { content: match[2], status: match[1] }
    })
}
