/**
 * @module store/filter
 * The listing filters, for stores that filter in process.
 */
import { matchesState, sessionSource, stateColumns, type Session } from '../core/session.js'
import type { ListQuery } from './types.js'

/**
 * Whether a session belongs in a listing (state, dialect, source, updated since).
 * @param session - the stored session
 * @param query - the listing
 */
export function matchesListQuery(session: Session, query: ListQuery): boolean {
  return (
    (query.dialect === undefined || session.dialect === query.dialect) &&
    (query.source === undefined || sessionSource(session) === query.source) &&
    (query.updatedSince === undefined || session.updated_at >= query.updatedSince) &&
    matchesState(stateColumns(session), session.updated_at, query.state, query.staleBefore)
  )
}
