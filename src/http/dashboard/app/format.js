// @ts-check
/**
 * @module dashboard/format
 * Times and texts as the page shows them, and the values the server hands the page on <body>.
 */

/** Sessions with unfinished items unchanged this long are stale (the server decides; badges say so). */
export const STALE_AFTER_MS = Number(document.body.dataset.staleAfterMs) || 900000

// the page carries the server's clock, so relative times do not depend on the browser's
const clockOffset = (Number(document.body.dataset.serverNow) || Date.now()) - Date.now()

/** The server's time now, epoch ms. */
export function now() {
  return Date.now() + clockOffset
}

/**
 * How long ago, in the largest whole unit ("now", "12 s ago", "3 min ago", …).
 * @param {string} iso
 */
export function relativeTime(iso) {
  const seconds = Math.max(0, Math.floor((now() - Date.parse(iso)) / 1000))
  if (seconds < 1) return 'now'
  if (seconds < 60) return seconds + ' s ago'
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return minutes + ' min ago'
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return hours + ' h ago'
  return Math.floor(hours / 24) + ' d ago'
}

/**
 * How long until, in the largest whole unit ("now", "in 12 s", "in 3 min", …).
 * @param {string} iso
 */
export function untilTime(iso) {
  const seconds = Math.max(0, Math.ceil((Date.parse(iso) - now()) / 1000))
  if (seconds < 1) return 'now'
  if (seconds < 60) return 'in ' + seconds + ' s'
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return 'in ' + minutes + ' min'
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return 'in ' + hours + ' h'
  return 'in ' + Math.floor(hours / 24) + ' d'
}

/**
 * The time in the browser's locale; the text itself when it is no time.
 * @param {string} iso
 */
export function absoluteTime(iso) {
  const date = new Date(iso)
  return isNaN(date.getTime()) ? iso : date.toLocaleString()
}

/**
 * An item's text in quotes, cut at 80 characters.
 * @param {string} text
 */
export function quote(text) {
  const s = String(text)
  return '“' + (s.length > 80 ? s.slice(0, 79) + '…' : s) + '”'
}
