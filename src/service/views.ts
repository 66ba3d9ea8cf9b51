/**
 * @module service/views
 * The JSON a session is shown as: built here, with the use cases, so the HTTP routes, the streams
 * and the alert worker's payload (`sessionSummary`) all show one shape (http/schemas documents it).
 */
import { labelsOf, originOf } from '../core/origin.js'
import { computeProgress, currentItem } from '../core/progress.js'
import { isReminderDue } from '../core/reminder.js'
import {
  sessionSource,
  sessionState,
  stateColumns,
  type Ended,
  type HistoryEntry,
  type Session,
  type SessionState,
  type Waiting,
  itemsKnown,
} from '../core/session.js'
import { lastAnswered } from '../core/decisions.js'
import { resolveDialect } from '../dialects/round.js'
import { editRefusal } from '../agents/index.js'
import { getDialect } from '../dialects/registry.js'
import { briefColumns, type SessionBrief } from '../store/brief.js'
import type { HistoryText } from '../store/types.js'

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * A wait as views, summaries and alert bodies show it: its pending request without what only
 * the service reads (`match`), times as ISO 8601.
 * @param waiting - the stored wait
 */
export function waitingOf(waiting: Waiting | null) {
  if (!waiting) return null
  const { request, ...rest } = waiting
  // `request: undefined` leaves the JSON as it was (no key) and gives both shapes one type
  if (!request) return { ...rest, at: iso(rest.at), request: undefined }
  const { match: _match, at: _at, expires_at, ...shown } = request
  return { ...rest, at: iso(rest.at), request: { ...shown, expires_at: iso(expires_at) } }
}

/** The last answered request of a session, for its view. */
function lastDecisionView(session: Session) {
  const record = lastAnswered(session)
  if (!record) return null
  const { request, answer } = record
  return {
    request_id: request.id,
    kind: request.kind,
    tool: request.tool,
    outcome: answer!.outcome,
    by: answer!.by,
    channel: answer!.channel,
    at: iso(answer!.at),
  }
}

const endedView = (ended: Ended | null) => (ended ? { ...ended, at: iso(ended.at) } : null)

const waitingView = (session: Session) => waitingOf(session.observed?.waiting ?? null)

/** What an observed session adds to its view; null for sessions fed by rounds. */
function observedView(session: Session) {
  const observed = session.observed
  if (!observed) return null
  const edit = observed.pending_edit
  return {
    todo_tools: observed.todo_tools,
    subagents: observed.agents,
    pending_edit: edit ? { items: edit.items, at: iso(edit.at) } : null,
    pending_calls: observed.pending.length,
    last_decision: lastDecisionView(session),
  }
}

const dialectOf = (session: Session) => resolveDialect(session, undefined)

const reminderDue = (session: Session) =>
  isReminderDue(dialectOf(session).reminder, session.settings, session)

/** The list as the session's dialect renders it. */
export const renderedList = (session: Session) => dialectOf(session).render(session.items)

/**
 * The session's state (core `sessionState`) at a point in time.
 * @param session - the stored session
 * @param staleBefore - epoch ms: unfinished sessions unchanged since are stale
 */
export const stateOf = (session: Session, staleBefore: number): SessionState =>
  sessionState(stateColumns(session), session.updated_at, staleBefore)

/**
 * The full view of a session.
 * @param session - the stored session
 * @param staleBefore - epoch ms: unfinished sessions unchanged since are stale
 */
export function sessionView(session: Session, staleBefore: number) {
  return {
    session_id: session.session_id,
    dialect: session.dialect,
    version: session.version,
    state: stateOf(session, staleBefore),
    items: session.items,
    rendered: renderedList(session),
    progress: computeProgress(session.items),
    current: currentItem(session.items),
    round: session.round,
    rounds_since_todo: session.rounds_since_todo,
    reminder_due: reminderDue(session),
    settings: session.settings,
    ended: endedView(session.ended),
    source: sessionSource(session),
    parent: session.observed?.parent ?? null,
    waiting: waitingView(session),
    items_known: itemsKnown(session),
    background: session.observed?.background ?? 0,
    observed: observedView(session),
    origin: originOf(session),
    labels: labelsOf(session),
    editable: editRefusal(session) === null,
    created_at: iso(session.created_at),
    updated_at: iso(session.updated_at),
  }
}

/**
 * A session's line in a listing, from its brief (the store keeps one beside each session; a
 * session at hand gives its own, `briefOf`).
 * @param brief - the session's brief
 * @param staleBefore - epoch ms: unfinished sessions unchanged since are stale
 */
export function sessionSummary(brief: SessionBrief, staleBefore: number) {
  const state = sessionState(briefColumns(brief), brief.updated_at, staleBefore)
  const policy = getDialect(brief.dialect)?.reminder
  return {
    session_id: brief.session_id,
    dialect: brief.dialect,
    version: brief.version,
    state,
    progress: brief.progress,
    current: brief.current,
    round: brief.round,
    reminder_due:
      policy !== undefined &&
      isReminderDue(policy, brief.settings, {
        rounds_since_todo: brief.rounds_since_todo,
        rounds_since_reminder: null,
      }),
    ended: endedView(brief.ended),
    stale: state === 'stale',
    source: brief.source,
    parent: brief.parent,
    waiting: waitingOf(brief.waiting),
    background: brief.background ?? 0,
    todo_tools: brief.todo_tools,
    items_known: brief.items_known ?? true,
    origin: originOf(brief),
    labels: labelsOf(brief),
    updated_at: iso(brief.updated_at),
  }
}

/**
 * A past version as the view of its time: the list and progress of that version; counters that
 * history does not keep are the current ones, and `replayed` says so. `change` is what wrote that
 * version (`source` stays what fed the session, as in every view).
 * @param session - the current session
 * @param entry - the past version
 * @param staleBefore - epoch ms: unfinished sessions unchanged since are stale
 */
export function historicalView(session: Session, entry: HistoryEntry, staleBefore: number) {
  const view = sessionView(
    { ...session, items: entry.items, version: entry.version, updated_at: entry.at },
    staleBefore
  )
  return { ...view, change: entry.source, replayed: true }
}

/**
 * A history entry as JSON text (its `at` as ISO 8601), for an entry whose list is its stored
 * JSON: the list is put in as it is, so a page of large lists costs copying them.
 * @param entry - the entry, its list as text (`SessionStore.historyText`)
 */
export const historyViewText = (entry: HistoryText): string =>
  `{"version":${entry.version},"at":"${iso(entry.at)}","source":${JSON.stringify(entry.source)},"items":${entry.items}}`
