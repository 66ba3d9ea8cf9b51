/**
 * @module store/people/memory
 * The memory store's tokens and audit trail: maps, each operation one synchronous step.
 */
import {
  compareAuditDesc,
  isAfterAuditCursor,
  matchesAudit,
  type AuditEntry,
} from '../../core/people.js'
import { AUDIT_SCAN_LIMIT, type AuditPage, type PeopleStore, type TokenRecord } from './types.js'

/**
 * Creates the memory people store.
 * @param now - the store's clock
 */
export function createMemoryPeople(now: () => number): PeopleStore {
  const tokens = new Map<string, TokenRecord>()
  const audit = new Map<string, { entry: AuditEntry; expiresAt: number }[]>()

  const live = (record: TokenRecord | undefined) =>
    record && (record.expires_at === null || record.expires_at > now()) ? record : null

  /* eslint-disable @typescript-eslint/require-await */
  return {
    async createToken(record) {
      tokens.set(record.hash, { ...record })
    },
    async findToken(hash) {
      const record = live(tokens.get(hash))
      if (!record && tokens.has(hash)) tokens.delete(hash)
      return record ? { ...record } : null
    },
    async listTokens(tenant, user) {
      return [...tokens.values()]
        .filter((t) => t.tenant === tenant && (user === undefined || t.user === user) && live(t))
        .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1))
        .map((t) => ({ ...t }))
    },
    async revokeToken(tenant, id) {
      for (const [hash, record] of tokens) {
        if (record.tenant === tenant && record.id === id) {
          tokens.delete(hash)
          return live(record) ? { ...record } : null
        }
      }
      return null
    },
    async appendAudit(entry, expiresAt) {
      const kept = (audit.get(entry.tenant) ?? []).filter((row) => row.expiresAt > now())
      kept.push({ entry: structuredClone(entry), expiresAt })
      audit.set(entry.tenant, kept)
    },
    async listAudit(tenant, query): Promise<AuditPage> {
      const rows = (audit.get(tenant) ?? [])
        .filter((row) => row.expiresAt > now())
        .map((row) => row.entry)
        .sort(compareAuditDesc)
      const entries: AuditEntry[] = []
      let scanned = 0
      let last: AuditEntry | undefined
      for (const entry of rows) {
        if (query.cursor && !isAfterAuditCursor(entry, query.cursor)) continue
        if (scanned++ === AUDIT_SCAN_LIMIT) return { entries, next: { at: last!.at, id: last!.id } }
        last = entry
        if (!matchesAudit(entry, query)) continue
        entries.push(structuredClone(entry))
        if (entries.length === query.limit) {
          const more = rows.indexOf(entry) < rows.length - 1
          return { entries, next: more ? { at: entry.at, id: entry.id } : null }
        }
      }
      return { entries, next: null }
    },
  }
}
