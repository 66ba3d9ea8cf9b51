/**
 * @module alerts/formats
 * The bodies of a delivery: `standard` (the event as JSON) and `slack` (one line of text for a
 * Slack or Mattermost incoming webhook).
 */
import { slackDecisionBlocks, type SlackDecisionTarget } from './slack-blocks.js'

/** Event types a webhook can subscribe to. */
export const EVENT_TYPES = [
  'session.waiting',
  'session.stale',
  'session.done',
  'session.ended',
  'session.resumed',
  'session.decided',
  'webhook.test',
] as const

export type EventType = (typeof EVENT_TYPES)[number]

/** The part of a session summary the one-line format reads (the standard body carries it whole). */
export interface SummaryLine {
  session_id: string
  state?: string
  progress?: { total: number; completed: number; percent: number }
  current?: { content: string } | null
  origin?: {
    user?: string | null
    host?: string | null
    repo?: string | null
    branch?: string | null
    agent?: string | null
  }
}

/** One event as it is delivered. */
export interface AlertPayload {
  type: EventType
  /** Epoch ms of the transition. */
  at: number
  /** The session summary (with origin and labels, state, progress, current). */
  session: SummaryLine & Record<string, unknown>
  waiting?: {
    reason: string
    message?: string | null
    since?: string
    /** The pending request a person may answer from elsewhere, and where (`decide_url`). */
    request?: Record<string, unknown>
    decide_url?: string | null
  } | null
  /** Allow / Deny buttons for a `slack` body (Slack interactivity on, a pending request). */
  slackDecision?: SlackDecisionTarget
  /** `session.decided`: the answer. */
  decision?: { request_id: string; outcome: string; by: string | null; channel: string } | null
  ended?: { outcome: string; detail?: string | null; at?: string; unfinished?: string[] } | null
  /** The dashboard link (PUBLIC_URL), or null. */
  url: string | null
}

/** The `standard` body. */
export function standardBody(payload: AlertPayload): string {
  const data: Record<string, unknown> = { session: payload.session }
  if (payload.waiting) data.waiting = payload.waiting
  if (payload.ended) data.ended = payload.ended
  if (payload.decision) data.decision = payload.decision
  data.url = payload.url
  return JSON.stringify({ type: payload.type, timestamp: new Date(payload.at).toISOString(), data })
}

const HEADLINES: Record<EventType, string> = {
  'session.waiting': 'waits for you',
  'session.stale': 'is stuck',
  'session.done': 'is done',
  'session.ended': 'ended',
  'session.resumed': 'is working again',
  'session.decided': 'was answered',
  'webhook.test': 'test delivery',
}

/** Text a person wrote (a list item) without Slack's markup and control characters. */
const plain = (text: string, max = 120) => {
  const flat = text.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').replace(/[<>&*_~`|]/g, ' ')
  const squeezed = flat.replace(/\s+/g, ' ').trim()
  return squeezed.length > max ? `${squeezed.slice(0, max - 1)}…` : squeezed
}

/** The `slack` body: `{text}`, one line: state, who, where, the current item, the link. */
export function slackBody(payload: AlertPayload): string {
  const { session } = payload
  const origin = session.origin ?? {}
  const who = [origin.user, origin.host].filter(Boolean).join('@')
  const where = origin.repo ? `${origin.repo}${origin.branch ? ` (${origin.branch})` : ''}` : ''
  let what = HEADLINES[payload.type]
  if (payload.type === 'session.waiting' && payload.waiting?.reason) {
    what += ` (${payload.waiting.reason})`
  }
  if (payload.type === 'session.ended' && payload.ended) {
    what += ` (${payload.ended.outcome}${payload.ended.unfinished?.length ? `, ${payload.ended.unfinished.length} unfinished` : ''})`
  }
  const parts = [
    `${origin.agent ?? 'agent'} ${plain(session.session_id, 140)} ${what}`,
    who && `by ${plain(who, 80)}`,
    where && `in ${plain(where, 120)}`,
    session.progress && `${session.progress.completed}/${session.progress.total} done`,
    session.current?.content && `now: ${plain(session.current.content)}`,
  ].filter(Boolean)
  const link = payload.url ? ` <${payload.url}|open>` : ''
  const text = parts.join(' · ') + link
  if (payload.slackDecision) {
    return JSON.stringify({ text, blocks: slackDecisionBlocks(text, payload.slackDecision) })
  }
  return JSON.stringify({ text })
}
