/**
 * @module store/alerts/fair
 * Turns among tenants, shared by the stores' claims (docs/alerts.md: every tenant's deliveries go
 * out however large another tenant's backlog is). A claim serves the tenants that have work in
 * turns, starting after the one the last claim began with, so a claim too small for everyone
 * serves the others next time.
 */

/** Where the last claim began, per claim kind of one store instance. */
export interface TurnCursor {
  last: string | null
}

/**
 * The tenants in the order a claim serves them: sorted, beginning after the cursor's, which
 * moves to the first one served.
 * @param tenants - the tenants with work (any order, duplicates allowed)
 * @param cursor - the claim kind's cursor
 */
export function inTurns(tenants: Iterable<string>, cursor: TurnCursor): string[] {
  const sorted = [...new Set(tenants)].sort()
  const start = cursor.last === null ? 0 : sorted.findIndex((t) => t > cursor.last!)
  const turned = start <= 0 ? sorted : [...sorted.slice(start), ...sorted.slice(0, start)]
  cursor.last = turned[0] ?? null
  return turned
}

/**
 * Each tenant's share of a claim of `limit` among `tenants` (at least one each).
 * @param limit - what the claim takes at most
 * @param tenants - how many tenants have work
 */
export const shareOf = (limit: number, tenants: number) =>
  Math.max(1, Math.ceil(limit / Math.max(1, tenants)))
