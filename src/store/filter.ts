/**
 * @module store/filter
 * The listing filters, for stores that filter in process.
 */
import { matchesOrigin } from '../core/origin.js'
import { matchesState } from '../core/session.js'
import { briefColumns, type SessionBrief } from './brief.js'
import type { ListQuery } from './types.js'

/**
 * Whether a session belongs in a listing (state, dialect, source, updated since, origin and
 * labels), judged from its brief.
 * @param brief - the session's stored brief
 * @param query - the listing
 */
export function matchesListQuery(brief: SessionBrief, query: ListQuery): boolean {
  return (
    (query.dialect === undefined || brief.dialect === query.dialect) &&
    (query.source === undefined || brief.source === query.source) &&
    (query.updatedSince === undefined || brief.updated_at >= query.updatedSince) &&
    matchesOrigin(brief, query) &&
    matchesState(briefColumns(brief), brief.updated_at, query.state, query.staleBefore)
  )
}
