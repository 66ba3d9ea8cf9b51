/**
 * @module cli/render
 * Text frames of `agent-todos watch`: a tenant's sessions, or one session's list.
 */
import type { Progress, SessionSummary, SessionView } from '../client/index.js'
import { AGENTS, type AgentData } from '../client/agents.js'

export type { SessionSummary, SessionView }

export interface RenderOptions {
  /** Terminal columns. */
  width: number
  /** Terminal rows; frames longer than this are cut (tenant view). Infinity when not a TTY. */
  height: number
  color: boolean
  /** Epoch ms. */
  now: number
  /**
   * Only what needs a person (`--needs-you`): waiting (the longest wait first), then stale (the
   * longest quiet first), then runs that ended with work left (the latest end first).
   */
  needsYou?: boolean
}

/** The state the server computed (`active`, `done`, `stale`, `ended`, or one added later). */
export type SessionState = SessionSummary['state']

/** How a state reads in the terminal (the server's names, except active: "working"). */
const STATE_LABEL: Record<string, string> = { active: 'working' }

/**
 * A session's source badge: '' for sessions fed by rounds; the agent's (generated from its
 * descriptor, client/agents), long or short (narrow terminals); a source a newer server adds reads
 * as its name.
 * @param source - the session's `source`
 * @param short - the narrow form
 */
export function sourceLabel(source: string, short = false): string {
  if (source === 'rounds') return ''
  const agent = agentOf(source)
  return agent ? (short ? agent.short : agent.terminal) : sanitize(source)
}

/** The observed agent of a session's source, from the generated data; undefined for others. */
const agentOf = (source: string): AgentData | undefined =>
  Object.hasOwn(AGENTS, source) ? AGENTS[source as keyof typeof AGENTS] : undefined

/** The note for a session whose agent has no todo tools (`todo_tools: false`). */
export function todoToolsNote(source: string, short = false): string {
  const toggle = agentOf(source)?.todoToolsSwitch
  if (short || !toggle) return 'todo tools off'
  return `todo tools off (set ${toggle})`
}

const OUTCOME_LABEL: Record<string, string> = {
  completed: 'ended: completed',
  max_turns: 'ended at max turns',
  error: 'ended: error',
  cancelled: 'ended: cancelled',
}

const MARKS: Record<string, string> = {
  completed: '[x]',
  in_progress: '[>]',
  pending: '[ ]',
  cancelled: '[-]',
  blocked: '[!]',
}

const BAR_WIDTH = 20

const ANSI = {
  bold: '1',
  dim: '2',
  red: '31',
  green: '32',
  yellow: '33',
  magenta: '35',
  cyan: '36',
} as const

type Style = keyof typeof ANSI

const paint = (options: RenderOptions, style: Style, text: string) =>
  options.color && text ? `\x1b[${ANSI[style]}m${text}\x1b[0m` : text

/**
 * Makes text from a model safe for a terminal: control characters (escape sequences included)
 * become spaces, so an item cannot move the cursor or recolour the screen, and bidi controls
 * (embeddings, overrides, isolates, marks) are removed, so an item cannot reorder what a person
 * reads on its line.
 * @param text - untrusted text
 */
export function sanitize(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- the control characters are what it removes
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
      .replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
  )
}

/** Cuts text to `width` code points, with an ellipsis when cut. */
export function fit(text: string, width: number): string {
  const chars = Array.from(text)
  if (chars.length <= width) return text
  return width <= 1
    ? chars.slice(0, width).join('')
    : chars
        .slice(0, width - 1)
        .join('')
        .trimEnd() + '…'
}

const pad = (text: string, width: number) => {
  const fitted = fit(text, width)
  return fitted + ' '.repeat(Math.max(0, width - Array.from(fitted).length))
}

/**
 * A progress bar of `width` cells.
 * @param percent - 0..100
 * @param width - cells
 */
export function progressBar(percent: number, width = BAR_WIDTH): string {
  const filled = Math.max(0, Math.min(width, Math.round((percent / 100) * width)))
  return '█'.repeat(filled) + '░'.repeat(width - filled)
}

type Shown = Pick<SessionSummary, 'ended' | 'state' | 'waiting'>

const stateLabel = (session: Shown) =>
  session.state === 'ended' && session.ended
    ? (OUTCOME_LABEL[session.ended.outcome] ?? 'ended')
    : (STATE_LABEL[session.state] ?? session.state)

const STATE_STYLE: Record<string, Style> = {
  active: 'cyan',
  waiting: 'magenta',
  stale: 'yellow',
  done: 'green',
  ended: 'red',
}

const stateStyle = (session: Shown): Style =>
  session.state === 'ended' && session.ended?.outcome === 'completed'
    ? 'dim'
    : (STATE_STYLE[session.state] ?? 'bold')

/**
 * "12 s ago", "5 min ago"...
 * @param iso - a timestamp
 * @param now - epoch ms
 */
export function ago(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (seconds < 60) return `${seconds} s ago`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.floor(minutes / 60)
  return hours < 48 ? `${hours} h ago` : `${Math.floor(hours / 24)} d ago`
}

const counted = (progress: Progress) =>
  `${progress.completed}/${progress.total - progress.cancelled}`

const currentText = (session: Pick<SessionSummary, 'current'>) =>
  session.current ? sanitize(session.current.active_form || session.current.content) : ''

/**
 * Column widths of the tenant table for a terminal width (every line fits from 40 columns);
 * `current` 0 drops that column, `source` 0 has none (no observed session).
 * @param width - terminal columns
 * @param longestId - the longest session id, in code points
 * @param sources - the longest source badge, long and short, in code points
 */
export function tenantLayout(width: number, longestId: number, sources = { long: 0, short: 0 }) {
  const layout = {
    state: 18,
    source: sources.long,
    shortSource: false,
    id: Math.min(32, Math.max(7, longestId)),
    bar: BAR_WIDTH,
    counted: true,
    current: 0,
  }
  // state, source, id, bar, percent and their gaps; the counts and the current item when they fit
  const fixed = () =>
    layout.state +
    1 +
    (layout.source ? layout.source + 1 : 0) +
    layout.id +
    2 +
    layout.bar +
    1 +
    4 +
    (layout.counted ? 8 : 0) +
    2
  // narrow terminals: give up cells in this order until the current item has 10
  const fits = () => width - fixed() >= 10
  while (!fits() && layout.bar > 10) layout.bar--
  // the current item tells more than the tail of a long id (observed agents' ids are UUIDs)
  while (width - fixed() < 24 && layout.id > 20) layout.id--
  if (!fits()) layout.counted = false
  while (!fits() && layout.id > 16) layout.id--
  if (!fits() && layout.source) {
    layout.source = sources.short
    layout.shortSource = true
  }
  while (!fits() && layout.state > 10) layout.state--
  while (!fits() && layout.id > 8) layout.id--
  while (!fits() && layout.bar > 5) layout.bar--
  layout.current = Math.max(0, width - fixed())
  return layout
}

/**
 * Sessions in listing order with subagents right after their main session (depth 1, theirs 2…);
 * a subagent whose main session is not listed stays at the top level.
 * @param sorted - the sessions, newest change first
 */
export function nestSubagents<T extends Pick<SessionSummary, 'session_id' | 'parent'>>(
  sorted: readonly T[]
): { session: T; depth: number }[] {
  const ids = new Set(sorted.map((s) => s.session_id))
  const children = new Map<string, T[]>()
  for (const s of sorted) {
    if (s.parent && s.parent !== s.session_id && ids.has(s.parent)) {
      const siblings = children.get(s.parent) ?? []
      siblings.push(s)
      children.set(s.parent, siblings)
    }
  }
  const out: { session: T; depth: number }[] = []
  const placed = new Set<string>()
  const place = (s: T, depth: number) => {
    if (placed.has(s.session_id)) return
    placed.add(s.session_id)
    out.push({ session: s, depth })
    for (const child of children.get(s.session_id) ?? []) place(child, depth + 1)
  }
  for (const s of sorted) if (!s.parent || !ids.has(s.parent)) place(s, 0)
  // parents that name each other: nothing above them is listed, so they go at the top level
  for (const s of sorted) place(s, 0)
  return out
}

/**
 * How a nested subagent's id reads: the part after its main session's id ("agent:…").
 * @param session - the subagent's session
 */
const nestedId = (session: Pick<SessionSummary, 'session_id' | 'parent'>) => {
  const prefix = `${session.parent}:`
  return session.session_id.startsWith(prefix)
    ? session.session_id.slice(prefix.length)
    : session.session_id
}

/** The SESSION cell: the id, or a subagent's own part indented under its main session. */
const idCell = (session: Pick<SessionSummary, 'session_id' | 'parent'>, depth: number) =>
  depth ? `${'  '.repeat(depth - 1)}↳ ${sanitize(nestedId(session))}` : sanitize(session.session_id)

/**
 * `user@host · repo (branch)` of a session, or '' when nothing is known (a server without
 * origins sends none).
 * @param session - the session's summary or view
 */
export function originLine(session: { origin?: SessionSummary['origin'] }): string {
  const origin = session.origin
  if (!origin) return ''
  const who = [origin.user, origin.host].filter(Boolean).join('@')
  const where = origin.repo ? origin.repo + (origin.branch ? ` (${origin.branch})` : '') : ''
  return sanitize([who, where].filter(Boolean).join(' · '))
}

/** Why a session needs a person, and where it goes; null when it does not. */
interface Need {
  rank: number
  order: number
  text: string
}

/**
 * Why a session needs a person (`--needs-you`): its agent waits (rank 0, since the wait began),
 * it is stale (1, since its last change), or its run ended with work left (2, the latest first).
 * @param s - the session
 * @param now - epoch ms
 */
export function needOf(s: SessionSummary, now: number): Need | null {
  if (s.waiting && s.state !== 'ended') {
    const message = s.waiting.message ? `: ${sanitize(s.waiting.message)}` : ''
    return {
      rank: 0,
      order: Date.parse(s.waiting.at),
      text: `waiting ${ago(s.waiting.at, now).replace(/ ago$/, '')} · ${sanitize(s.waiting.reason)}${message}`,
    }
  }
  if (s.state === 'stale') {
    return {
      rank: 1,
      order: Date.parse(s.updated_at),
      text: `no change for ${ago(s.updated_at, now).replace(/ ago$/, '')}`,
    }
  }
  if (s.state === 'ended' && s.ended && s.ended.unfinished.length > 0) {
    const left = s.ended.unfinished.length
    return {
      rank: 2,
      order: -Date.parse(s.ended.at),
      text: `${OUTCOME_LABEL[s.ended.outcome] ?? 'ended'} ${ago(s.ended.at, now)}, ${left} left`,
    }
  }
  return null
}

/**
 * The sessions that need a person, in the order `--needs-you` shows them.
 * @param sessions - the tenant's sessions
 * @param now - epoch ms
 */
export function needing(sessions: readonly SessionSummary[], now: number) {
  const out: { session: SessionSummary; need: Need }[] = []
  for (const session of sessions) {
    const need = needOf(session, now)
    if (need) out.push({ session, need })
  }
  return out.sort(
    (a, b) =>
      a.need.rank - b.need.rank ||
      a.need.order - b.need.order ||
      a.session.session_id.localeCompare(b.session.session_id)
  )
}

/**
 * The tenant frame: one line per session, newest change first, each line within the width.
 * @param sessions - the sessions, with the state the server computed
 * @param header - the first line (server, connection state)
 * @param options - size, colour, clock
 */
export function renderTenantFrame(
  sessions: readonly SessionSummary[],
  header: string,
  options: RenderOptions
): string {
  const needs = options.needsYou ? needing(sessions, options.now) : null
  const reasons = new Map(needs?.map(({ session, need }) => [session.session_id, need.text]))
  const sorted = needs
    ? needs.map(({ session }) => session)
    : [...sessions].sort(
        (a, b) =>
          Date.parse(b.updated_at) - Date.parse(a.updated_at) ||
          a.session_id.localeCompare(b.session_id)
      )
  const tally = new Map<string, number>()
  for (const s of sorted) tally.set(s.state, (tally.get(s.state) ?? 0) + 1)
  // the four states always, waiting when there is one, then any state a newer server sends
  const known = ['active', ...(tally.has('waiting') ? ['waiting'] : []), 'stale', 'done', 'ended']
  const states = [...known, ...[...tally.keys()].filter((state) => !known.includes(state)).sort()]
  const counts = states
    .map((state) => `${tally.get(state) ?? 0} ${STATE_LABEL[state] ?? state}`)
    .join(', ')
  const total = needs
    ? `${sorted.length} need${sorted.length === 1 ? 's' : ''} you of ${sessions.length} session${sessions.length === 1 ? '' : 's'}`
    : `${sorted.length} session${sorted.length === 1 ? '' : 's'}`
  const lines = [
    paint(options, 'bold', fit(header, options.width)),
    fit(`${total}: ${counts}`, options.width),
    '',
  ]
  if (!sorted.length) {
    lines.push(
      paint(
        options,
        'dim',
        needs ? 'Nothing needs you: no agent waits, none is stale.' : 'No sessions yet.'
      )
    )
    return lines.join('\n') + '\n'
  }
  // what needs a person goes in its own order, each session on its own
  const rows = needs ? sorted.map((session) => ({ session, depth: 0 })) : nestSubagents(sorted)
  const longest = (texts: string[]) => Math.max(0, ...texts.map((t) => Array.from(t).length))
  const layout = tenantLayout(
    options.width,
    longest(rows.map((row) => idCell(row.session, row.depth))),
    {
      long: longest(sorted.map((s) => sourceLabel(s.source))),
      short: longest(sorted.map((s) => sourceLabel(s.source, true))),
    }
  )
  const progressTitle = layout.bar + 5 + (layout.counted ? 8 : 0)
  const sourceTitle = layout.source ? `${pad('SOURCE', layout.source)} ` : ''
  let titles = `${pad('STATE', layout.state)} ${sourceTitle}${pad('SESSION', layout.id)}  ${pad('PROGRESS', progressTitle)}`
  if (layout.current) titles += '  CURRENT'
  lines.push(paint(options, 'dim', fit(titles.trimEnd(), options.width)))
  // lines left for the sessions (a session with an origin takes two)
  const room = Number.isFinite(options.height)
    ? Math.max(1, options.height - lines.length - 2)
    : Infinity
  let used = 0
  let shown = 0
  for (const { session: s, depth } of rows) {
    // a session with an origin takes a second line: whose agent it is, and where
    const origin = originLine(s)
    if (used + (origin ? 2 : 1) > room && shown > 0) break
    used += origin ? 2 : 1
    shown++
    const style = stateStyle(s)
    const line = [paint(options, style, pad(stateLabel(s), layout.state)), ' ']
    if (layout.source)
      line.push(
        paint(options, 'bold', pad(sourceLabel(s.source, layout.shortSource), layout.source)),
        ' '
      )
    line.push(pad(idCell(s, depth), layout.id), '  ')
    // an agent without todo tools has no list to make progress on: the note takes the bar's place
    const noTools = s.todo_tools === false
    if (noTools)
      line.push(paint(options, 'yellow', pad(todoToolsNote(s.source, true), layout.bar + 5)))
    else
      line.push(
        paint(options, style, progressBar(s.progress.percent, layout.bar)),
        ' ',
        `${s.progress.percent}%`.padStart(4)
      )
    if (layout.counted) line.push(' ', noTools ? ' '.repeat(7) : counted(s.progress).padStart(7))
    if (layout.current) {
      let current = currentText(s)
      const toggle = agentOf(s.source)?.todoToolsSwitch
      if (!current && noTools && toggle) current = `set ${toggle}`
      if (!current)
        current =
          s.progress.total === 0 ? '(no items yet)' : s.state === 'done' ? '(all done)' : '—'
      if (s.waiting && s.state !== 'waiting' && s.state !== 'ended') current += ' [waiting]'
      if (s.reminder_due && s.state !== 'ended') current += ' [reminder due]'
      const reason = reasons.get(s.session_id)
      if (reason) current = `${reason} · ${current}`
      line.push('  ', fit(current, layout.current))
    }
    lines.push(line.join('').trimEnd())
    if (origin) {
      const indent = layout.state + 1 + (layout.source ? layout.source + 1 : 0)
      lines.push(
        paint(options, 'dim', fit(`${' '.repeat(indent)}${origin}`, options.width).trimEnd())
      )
    }
  }
  if (rows.length > shown) lines.push(paint(options, 'dim', `… ${rows.length - shown} more`))
  return lines.join('\n') + '\n'
}

/**
 * The session frame: header, progress bar, current item, every item; each line within the width.
 * @param view - the session view, with the state the server computed
 * @param header - the first line (server, connection state)
 * @param options - size, colour, clock
 */
export function renderSessionFrame(
  view: SessionView,
  header: string,
  options: RenderOptions
): string {
  const style = stateStyle(view)
  const p = view.progress
  const source = sourceLabel(view.source)
  // an observed agent runs no rounds here: its round count says nothing
  const title = [
    sanitize(view.session_id),
    ...(source ? [source] : []),
    view.dialect,
    `v${view.version}`,
    ...(view.source === 'rounds' ? [`round ${view.round}`] : []),
    `updated ${ago(view.updated_at, options.now)}`,
  ]
  const counts = [`${counted(p)} completed`, `${p.in_progress} in progress`, `${p.pending} pending`]
  if (p.blocked) counts.push(`${p.blocked} blocked`)
  if (p.cancelled) counts.push(`${p.cancelled} cancelled`)
  const percent = `${p.percent}%`.padStart(4)
  const barWidth = Math.max(5, Math.min(30, options.width - 5 - 2 - counts.join(' · ').length))
  const rest = fit(`${percent}  ${counts.join(' · ')}`, Math.max(4, options.width - barWidth - 1))
  const bar = paint(options, style, progressBar(p.percent, barWidth))
  const reminder =
    view.reminder_due && view.state !== 'ended' ? paint(options, 'yellow', '  · reminder due') : ''
  const lines = [
    paint(options, 'bold', fit(header, options.width)),
    '',
    fit(title.join(' · '), options.width),
    `${bar} ${rest}`,
    `State: ${paint(options, style, fit(stateLabel(view), Math.max(1, options.width - 7)))}${options.width >= 40 ? reminder : ''}`,
  ]
  if (view.waiting) {
    const message = view.waiting.message ? `: ${sanitize(view.waiting.message)}` : ''
    lines.push(
      paint(
        options,
        'magenta',
        fit(`Waiting for a person (${sanitize(view.waiting.reason)})${message}`, options.width)
      )
    )
  }
  const origin = originLine(view)
  if (origin) lines.push(fit(`By: ${origin}`, options.width))
  const detail = [
    view.origin?.cwd ? `in ${sanitize(view.origin.cwd)}` : '',
    view.origin?.model ? `model ${sanitize(view.origin.model)}` : '',
  ].filter(Boolean)
  if (detail.length) lines.push(fit(detail.join(' · '), options.width))
  if (view.parent) lines.push(fit(`Subagent of ${sanitize(view.parent)}`, options.width))
  const subagents = view.observed?.subagents ?? []
  if (subagents.length) {
    const names = subagents.map((id) =>
      sanitize(nestedId({ session_id: id, parent: view.session_id }))
    )
    lines.push(fit(`Subagents: ${names.join(', ')}`, options.width))
  }
  if (view.observed?.todo_tools === false) {
    const note = todoToolsNote(view.source)
    const shown = Array.from(note).length <= options.width ? note : todoToolsNote(view.source, true)
    lines.push(paint(options, 'yellow', fit(shown, options.width)))
  }
  if (view.observed?.pending_edit) {
    const at = ago(view.observed.pending_edit.at, options.now)
    lines.push(fit(`Edit pending delivery to the agent (made ${at})`, options.width))
  }
  if (view.current)
    lines.push(fit(`${view.ended ? 'Stopped at' : 'Now'}: ${currentText(view)}`, options.width))
  if (view.ended) {
    const detail = view.ended.detail ? ` (${sanitize(view.ended.detail)})` : ''
    const unfinished = view.ended.unfinished.length
      ? `; unfinished #${view.ended.unfinished.map(sanitize).join(', #')}`
      : ''
    lines.push(fit(`Ended ${view.ended.at}${detail}${unfinished}`, options.width))
  }
  lines.push('')
  if (!view.items.length) lines.push(paint(options, 'dim', '  (the list is empty)'))
  for (const item of view.items) {
    const mark = MARKS[item.status] ?? '[?]'
    const markStyle: Style | null =
      item.status === 'completed'
        ? 'green'
        : item.status === 'in_progress'
          ? 'cyan'
          : item.status === 'blocked'
            ? 'red'
            : null
    const form =
      item.status === 'in_progress' && item.active_form && item.active_form !== item.content
        ? `  (${sanitize(item.active_form)})`
        : ''
    const text = fit(
      `#${sanitize(item.id)} ${sanitize(item.content)}${form}`,
      Math.max(1, options.width - 6)
    )
    const finished = item.status === 'cancelled' || item.status === 'completed'
    const shownMark = markStyle ? paint(options, markStyle, mark) : mark
    lines.push(`  ${shownMark} ${finished ? paint(options, 'dim', text) : text}`)
  }
  return lines.join('\n') + '\n'
}
