/**
 * @module store/brief
 * A session's brief: the few fields a listing line, a tenant snapshot and the listing filters
 * show, kept beside the session by every store (written with it, in the same step), so that
 * listing a tenant reads and parses kilobytes, not whole sessions (`MAX_SESSION_BYTES` each).
 */
import type { Item } from '../core/items.js'
import { labelsOf, originOf, type Labels, type Origin } from '../core/origin.js'
import { computeProgress, currentItem, type Progress } from '../core/progress.js'
import type { ReminderSettings } from '../core/reminder.js'
import {
  itemsKnown,
  sessionSource,
  type Ended,
  type Session,
  type SessionSource,
  type StateColumns,
  type Waiting,
} from '../core/session.js'

/** What a listing knows of a session without reading it whole. */
export interface SessionBrief {
  session_id: string
  dialect: string
  version: number
  progress: Progress
  current: Item | null
  round: number
  /** With `settings`: whether the reminder is due (the dialect's policy decides). */
  rounds_since_todo: number
  settings: ReminderSettings
  ended: Ended | null
  source: SessionSource
  parent: string | null
  waiting: Waiting | null
  todo_tools: boolean | null
  /** False while the list's item texts are unknown (telemetry); absent in older briefs: true. */
  items_known?: boolean
  updated_at: number
  /** Who and where (`core/origin`); absent in briefs written before origins were kept. */
  origin?: Origin
  /** The session's labels; absent in briefs written before labels were kept. */
  labels?: Labels
  /** Background work the agent still runs (absent: none): the session is not done. */
  background?: number
}

/**
 * The brief of a session, as a store keeps it beside the session.
 * @param session - the session as written
 */
export function briefOf(session: Session): SessionBrief {
  const observed = session.observed
  return {
    session_id: session.session_id,
    dialect: session.dialect,
    version: session.version,
    progress: computeProgress(session.items),
    current: currentItem(session.items),
    round: session.round,
    rounds_since_todo: session.rounds_since_todo,
    settings: session.settings,
    ended: session.ended,
    source: sessionSource(session),
    parent: observed?.parent ?? null,
    waiting: observed?.waiting ?? null,
    todo_tools: observed?.todo_tools ?? null,
    items_known: itemsKnown(session),
    updated_at: session.updated_at,
    origin: originOf(session),
    labels: labelsOf(session),
    ...(observed?.background ? { background: observed.background } : {}),
  }
}

/**
 * The state columns of a brief (core `stateColumns` of its session).
 * @param brief - the brief
 */
export function briefColumns(brief: SessionBrief): StateColumns {
  const { total, completed, cancelled } = brief.progress
  return {
    total,
    unfinished: total - completed - cancelled,
    ended: brief.ended !== null,
    waiting: brief.waiting !== null,
    background: (brief.background ?? 0) > 0,
  }
}

/**
 * A stored brief's JSON, or null when it is not one (absent, or written by an older release):
 * the caller reads the session instead.
 * @param json - the stored text
 */
export function parseBrief(json: string | null | undefined): SessionBrief | null {
  if (!json) return null
  try {
    const brief = JSON.parse(json) as SessionBrief
    return typeof brief === 'object' && brief !== null && typeof brief.progress === 'object'
      ? brief
      : null
  } catch {
    return null
  }
}
