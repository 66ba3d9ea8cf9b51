/**
 * @module cli/render
 * Text frames of `agent-todos watch`: a tenant's sessions, or one session's list.
 */
import type { z } from '@hono/zod-openapi'
import type * as S from '../http/schemas.js'

export type SessionSummary = z.infer<typeof S.SessionSummary>
export type SessionView = z.infer<typeof S.SessionView>
type Progress = z.infer<typeof S.Progress>

export interface RenderOptions {
  /** Terminal columns. */
  width: number
  /** Terminal rows; frames longer than this are cut (tenant view). Infinity when not a TTY. */
  height: number
  color: boolean
  /** Epoch ms. */
  now: number
}

export type SessionState = 'working' | 'stale' | 'done' | 'ended'

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
  cyan: '36',
} as const

type Style = keyof typeof ANSI

const paint = (options: RenderOptions, style: Style, text: string) =>
  options.color && text ? `\x1b[${ANSI[style]}m${text}\x1b[0m` : text

/**
 * Makes text from a model safe for a terminal: control characters (escape sequences included)
 * become spaces, so an item cannot move the cursor or recolour the screen.
 * @param text - untrusted text
 */
export function sanitize(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
}

/** Cuts text to `width` code points, with an ellipsis when cut. */
export function fit(text: string, width: number): string {
  const chars = Array.from(text)
  if (chars.length <= width) return text
  return width <= 1 ? chars.slice(0, width).join('') : chars.slice(0, width - 1).join('') + '…'
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

/**
 * How a session stands: ended, done, stale (per the server's flag) or working.
 * @param session - a summary or a view
 * @param stale - whether the server lists it as stale
 */
export function sessionState(
  session: Pick<SessionSummary, 'ended' | 'progress'>,
  stale: boolean
): SessionState {
  if (session.ended) return 'ended'
  const open = session.progress.total - session.progress.completed - session.progress.cancelled
  if (session.progress.total > 0 && open === 0) return 'done'
  return stale && open > 0 ? 'stale' : 'working'
}

const stateLabel = (session: Pick<SessionSummary, 'ended'>, state: SessionState) =>
  state === 'ended' ? (OUTCOME_LABEL[session.ended!.outcome] ?? 'ended') : state

const stateStyle = (session: Pick<SessionSummary, 'ended'>, state: SessionState): Style =>
  state === 'working'
    ? 'cyan'
    : state === 'stale'
      ? 'yellow'
      : state === 'done'
        ? 'green'
        : session.ended!.outcome === 'completed'
          ? 'dim'
          : 'red'

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
 * The tenant frame: one line per session, newest change first.
 * @param sessions - the sessions
 * @param stale - ids the server lists as stale
 * @param header - the first line (server, connection state)
 * @param options - size, colour, clock
 */
export function renderTenant(
  sessions: readonly SessionSummary[],
  stale: ReadonlySet<string>,
  header: string,
  options: RenderOptions
): string {
  const sorted = [...sessions].sort(
    (a, b) =>
      Date.parse(b.updated_at) - Date.parse(a.updated_at) ||
      a.session_id.localeCompare(b.session_id)
  )
  const states = sorted.map((s) => sessionState(s, s.stale || stale.has(s.session_id)))
  const tally = (state: SessionState) => states.filter((x) => x === state).length
  const counts = (['working', 'stale', 'done', 'ended'] as const)
    .map((state) => `${tally(state)} ${state}`)
    .join(', ')
  const lines = [
    paint(options, 'bold', fit(header, options.width)),
    fit(`${sorted.length} session${sorted.length === 1 ? '' : 's'}: ${counts}`, options.width),
    '',
  ]
  if (!sorted.length) {
    lines.push(paint(options, 'dim', 'No sessions yet.'))
    return lines.join('\n') + '\n'
  }
  const idWidth = Math.min(
    32,
    Math.max(7, ...sorted.map((s) => Array.from(sanitize(s.session_id)).length))
  )
  const stateWidth = 18
  const fixed = stateWidth + 1 + idWidth + 2 + BAR_WIDTH + 1 + 4 + 1 + 7 + 2
  const currentWidth = Math.max(10, options.width - fixed)
  const titles = `${pad('STATE', stateWidth)} ${pad('SESSION', idWidth)}  ${pad('PROGRESS', BAR_WIDTH + 13)}`
  lines.push(paint(options, 'dim', `${titles}  CURRENT`))
  const room = Number.isFinite(options.height)
    ? Math.max(1, options.height - lines.length - 2)
    : sorted.length
  sorted.slice(0, room).forEach((s, i) => {
    const state = states[i]
    const style = stateStyle(s, state)
    let current = currentText(s)
    if (!current)
      current = s.progress.total === 0 ? '(no items yet)' : state === 'done' ? '(all done)' : '—'
    if (s.reminder_due && state !== 'ended') current += ' [reminder due]'
    const line = [
      paint(options, style, pad(stateLabel(s, state), stateWidth)),
      ' ',
      pad(sanitize(s.session_id), idWidth),
      '  ',
      paint(options, style, progressBar(s.progress.percent)),
      ' ',
      `${s.progress.percent}%`.padStart(4),
      ' ',
      counted(s.progress).padStart(7),
      '  ',
      fit(current, currentWidth),
    ]
    lines.push(line.join('').trimEnd())
  })
  if (sorted.length > room) lines.push(paint(options, 'dim', `… ${sorted.length - room} more`))
  return lines.join('\n') + '\n'
}

/**
 * The session frame: header, progress bar, current item, every item.
 * @param view - the session view
 * @param stale - whether the server lists it as stale
 * @param header - the first line (server, connection state)
 * @param options - size, colour, clock
 */
export function renderSession(
  view: SessionView,
  stale: boolean,
  header: string,
  options: RenderOptions
): string {
  const state = sessionState(view, stale)
  const style = stateStyle(view, state)
  const p = view.progress
  const title = [
    sanitize(view.session_id),
    view.dialect,
    `v${view.version}`,
    `round ${view.round}`,
    `updated ${ago(view.updated_at, options.now)}`,
  ]
  const counts = [`${counted(p)} completed`, `${p.in_progress} in progress`, `${p.pending} pending`]
  if (p.blocked) counts.push(`${p.blocked} blocked`)
  if (p.cancelled) counts.push(`${p.cancelled} cancelled`)
  const bar = paint(options, style, progressBar(p.percent, 30))
  const reminder =
    view.reminder_due && state !== 'ended' ? paint(options, 'yellow', '  · reminder due') : ''
  const lines = [
    paint(options, 'bold', fit(header, options.width)),
    '',
    fit(title.join(' · '), options.width),
    `${bar} ${`${p.percent}%`.padStart(4)}  ${counts.join(' · ')}`,
    `State: ${paint(options, style, stateLabel(view, state))}${reminder}`,
  ]
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
      Math.max(10, options.width - 6)
    )
    const finished = item.status === 'cancelled' || item.status === 'completed'
    const shownMark = markStyle ? paint(options, markStyle, mark) : mark
    lines.push(`  ${shownMark} ${finished ? paint(options, 'dim', text) : text}`)
  }
  return lines.join('\n') + '\n'
}
