/**
 * @module store/cursor
 * Listing cursors: a position in the (updated_at desc, session_id desc) order.
 */
import type { Session } from '../core/session.js'
import { SESSION_ID_SOURCE } from '../core/ids.js'
import type { ListCursor } from './types.js'

/**
 * The cursor after the last session of a page.
 * @param session - the page's last session (or its brief)
 */
export const cursorAfter = (session: Pick<Session, 'updated_at' | 'session_id'>): ListCursor => ({
  updatedAt: session.updated_at,
  sessionId: session.session_id,
})

/**
 * Whether a session sorts after the cursor, i.e. belongs to the next page.
 * @param updatedAt - the session's last change
 * @param sessionId - its id
 * @param cursor - the last entry of the previous page
 */
export function isBeforeCursor(updatedAt: number, sessionId: string, cursor: ListCursor): boolean {
  return (
    updatedAt < cursor.updatedAt || (updatedAt === cursor.updatedAt && sessionId < cursor.sessionId)
  )
}

/** Encodes a cursor as an opaque URL-safe token. */
export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(`${cursor.updatedAt}:${cursor.sessionId}`).toString('base64url')
}

const CURSOR_PATTERN = new RegExp(`^(\\d{1,16}):(${SESSION_ID_SOURCE})$`)

/** Decodes a token made by `encodeCursor`; undefined when it is not one. */
export function decodeCursor(token: string): ListCursor | undefined {
  const text = Buffer.from(token, 'base64url').toString('utf8')
  const match = CURSOR_PATTERN.exec(text)
  if (!match) return undefined
  return { updatedAt: Number(match[1]), sessionId: match[2] }
}

/** Encodes a history position (the oldest version of a page) as an opaque token. */
export function encodeHistoryCursor(version: number): string {
  return Buffer.from(`h:${version}`).toString('base64url')
}

/** Decodes a token made by `encodeHistoryCursor`; undefined when it is not one. */
export function decodeHistoryCursor(token: string): number | undefined {
  const match = /^h:(\d{1,15})$/.exec(Buffer.from(token, 'base64url').toString('utf8'))
  return match ? Number(match[1]) : undefined
}
