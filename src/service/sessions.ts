/**
 * @module service/sessions
 * A person's changes to a session: edit its list, end its run, delete it.
 */
import { isUnfinished, type Item } from '../core/items.js'
import { checkSessionLimits, checkStoredLimits } from '../core/limits.js'
import { fillOrigin, type OriginUpdate } from '../core/origin.js'
import {
  newSession,
  type EndedOutcome,
  type Session,
  type SessionKey,
  type SessionSettings,
} from '../core/session.js'
import { resolveDialect } from '../dialects/round.js'
import { editRefusal } from '../agents/index.js'
import { pendEdit } from '../ingest/edit.js'
import type { ServiceDeps } from './deps.js'
import { ServiceError, sessionNotFound } from './errors.js'
import { updateWithinQuota } from './rounds.js'

const UNTRUSTED_EDIT =
  "In open access, an edit from another origin's page cannot be handed to a running agent (it would reach the model as hook context). Send it from the dashboard on the service's own origin, without an Origin header (curl, a script), or configure AUTH_KEYS and send an agent or admin key."

/** An edit of a list by a person (`PUT …/todos`). */
export interface ListEdit {
  /** The whole new list. */
  items: Item[]
  /** The dialect of a session this creates; a different one than an existing session's is refused. */
  dialect?: string
  /** The settings of a session this creates (its reminder, a dialect's flavour), as a round's. */
  settings?: SessionSettings
  /** A precondition on the current version (If-Match), with the words it was given in. */
  ifMatch?: { header: string; matches: (current: Session | null) => boolean }
  /**
   * Whether the edit may not reach a running agent: in open access, any page CORS_ORIGINS admits
   * could send it (the adapter decides, from the request's origin).
   */
  untrusted: boolean
  /** What the request says of the session's origin and labels (filled once). */
  who?: OriginUpdate
}

/**
 * Replaces a session's list (creating the session), atomically. An observed session's edit is
 * left pending, for the agent's next hook reply to hand to the model.
 * @param deps - store, clock, limits, the edit hook
 * @param key - tenant and session
 * @param edit - the list and its conditions
 * @returns the session as stored
 * @throws ServiceError `version-mismatch`, `agent-owns-list`, `dialect-rule`, `limit-exceeded`,
 *   `untrusted-edit`; DialectConflictError; QuotaExceededError
 */
export async function editList(
  deps: ServiceDeps,
  key: SessionKey,
  edit: ListEdit
): Promise<Session> {
  const now = deps.now()
  const session = await updateWithinQuota(deps, key, (current, { versionFloor }) => {
    if (edit.ifMatch && !edit.ifMatch.matches(current)) {
      throw new ServiceError(
        'version-mismatch',
        current
          ? `If-Match ${edit.ifMatch.header} does not match the current version "${current.version}".`
          : `If-Match ${edit.ifMatch.header} given, but there is no session '${key.sessionId}'.`
      )
    }
    const refusal = editRefusal(current)
    if (refusal) throw new ServiceError('agent-owns-list', refusal)
    const dialect = resolveDialect(current, edit.dialect, edit.settings)
    const checked = dialect.checkList(edit.items)
    if (!checked.ok) throw new ServiceError('dialect-rule', checked.message)
    const base = current ?? newSession(key, dialect.name, edit.settings ?? {}, now, versionFloor)
    const stored = { items: checked.items, data: base.dialect_state }
    const overLimit = checkStoredLimits(stored, deps.limits)
    if (overLimit) throw new ServiceError('limit-exceeded', overLimit)
    if (current?.observed) {
      if (edit.untrusted) throw new ServiceError('untrusted-edit', UNTRUSTED_EDIT)
      // an observed Claude session: handed to the model by the next PostToolUse hook reply
      const pending = fillOrigin(pendEdit(current, checked.items, now), edit.who)
      // the pending edit is a second list: the whole session stays within MAX_SESSION_BYTES
      const overSession = checkSessionLimits(pending, deps.limits)
      if (overSession) throw new ServiceError('limit-exceeded', overSession)
      return { value: pending, write: { session: pending, source: 'put' } }
    }
    const next: Session = fillOrigin(
      {
        ...base,
        items: checked.items,
        version: base.version + 1,
        notice_pending: true,
        updated_at: now,
      },
      edit.who
    )
    return { value: next, write: { session: next, source: 'put' } }
  })
  deps.onEdit?.(session)
  return session
}

/**
 * Ends a session's run (`POST …/end`): its outcome, and the items it left unfinished.
 * @param deps - store and clock
 * @param key - tenant and session
 * @param end - the outcome and an optional detail
 * @returns the session as stored
 * @throws ServiceError `session-not-found`
 */
export function endSession(
  deps: Pick<ServiceDeps, 'store' | 'now'>,
  key: SessionKey,
  end: { outcome: EndedOutcome; detail?: string }
): Promise<Session> {
  const now = deps.now()
  return deps.store.update(key, (current) => {
    if (!current) throw sessionNotFound(key.sessionId)
    const next: Session = {
      ...current,
      version: current.version + 1,
      ended: {
        outcome: end.outcome,
        detail: end.detail ?? null,
        at: now,
        unfinished: current.items.filter(isUnfinished).map((item) => item.id),
      },
      updated_at: now,
    }
    return { value: next, write: { session: next, source: 'end' } }
  })
}

/**
 * Deletes a session.
 * @param deps - the store
 * @param key - tenant and session
 * @throws ServiceError `session-not-found`
 */
export async function deleteSession(
  deps: Pick<ServiceDeps, 'store'>,
  key: SessionKey
): Promise<void> {
  if (!(await deps.store.delete(key))) throw sessionNotFound(key.sessionId)
}

/**
 * A session the tenant has.
 * @param deps - the store
 * @param key - tenant and session
 * @throws ServiceError `session-not-found`
 */
export async function loadSession(
  deps: Pick<ServiceDeps, 'store'>,
  key: SessionKey
): Promise<Session> {
  const session = await deps.store.get(key)
  if (!session) throw sessionNotFound(key.sessionId)
  return session
}
