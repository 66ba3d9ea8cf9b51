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

/**
 * Slack text (mrkdwn) the service vouches for: its own words, with every value from an agent or
 * a request already escaped inside. Only `slackText`, `slackValue` and `slackLink` make one, so a
 * value cannot reach a line unescaped: a new field added to the line goes through them too.
 */
export class SlackText {
  /** @param vouch - this module's token: no other module can make one */
  constructor(
    vouch: typeof VOUCHED,
    readonly text: string
  ) {
    if (vouch !== VOUCHED) throw new TypeError('SlackText is made by slackText/slackValue only')
  }
}
const VOUCHED: unique symbol = Symbol('slack-text')
const vouched = (text: string) => new SlackText(VOUCHED, text)

/** Slack's control characters, escaped as its docs ask (`&`, `<`, `>`): no mention, no link. */
const escapeSlack = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * A value from an agent or a request as Slack shows it: control characters, and the characters
 * that would start or end formatting (`*`, `_`, `~`, a backquote at a word's edge), become spaces,
 * the line is squeezed and bounded to `max` characters, then escaped.
 * @param value - the value (a number is shown as it is)
 * @param max - the most characters shown
 */
export function slackValue(value: string | number, max = 120): SlackText {
  const flat = String(value)
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]+/gu, ' ')
    // at a word's edge only, where Slack would read it as markup (`permission_prompt` stays)
    .replace(/(?<![\p{L}\p{N}])[*_~`]+|[*_~`]+(?![\p{L}\p{N}])/gu, ' ')
  const squeezed = flat.replace(/\s+/g, ' ').trim()
  return vouched(escapeSlack(squeezed.length > max ? `${squeezed.slice(0, max - 1)}…` : squeezed))
}

/**
 * Builds Slack text: the template's literal parts are the service's words; every interpolated
 * string or number is escaped with `slackValue`, a `SlackText` is taken as it is.
 */
export function slackText(
  words: TemplateStringsArray,
  ...values: (string | number | SlackText)[]
): SlackText {
  let text = words[0]
  values.forEach((value, i) => {
    text += (value instanceof SlackText ? value : slackValue(value)).text + words[i + 1]
  })
  return vouched(text)
}

/** A link `<url|label>`, its URL escaped too (a `|` or `>` in it cannot end it early). */
export function slackLink(url: string, label: string): SlackText {
  return vouched(`<${escapeSlack(url).replace(/\|/g, '%7C')}|${slackValue(label).text}>`)
}

/** Joins pieces of Slack text (the empty ones left out). */
function joinSlack(parts: (SlackText | null)[], separator: string): SlackText {
  return vouched(
    parts
      .filter((part): part is SlackText => part !== null && part.text !== '')
      .map((part) => part.text)
      .join(separator)
  )
}

/** What the line says happened, with the reason or the outcome an agent gave. */
function slackHeadline(payload: AlertPayload): SlackText {
  const what = HEADLINES[payload.type]
  if (payload.type === 'session.waiting' && payload.waiting?.reason) {
    return slackText`${what} (${payload.waiting.reason})`
  }
  if (payload.type === 'session.ended' && payload.ended) {
    const unfinished = payload.ended.unfinished?.length
    return unfinished
      ? slackText`${what} (${payload.ended.outcome}, ${unfinished} unfinished)`
      : slackText`${what} (${payload.ended.outcome})`
  }
  return slackText`${what}`
}

/** The `slack` body: `{text}`, one line: state, who, where, the current item, the link. */
export function slackBody(payload: AlertPayload): string {
  const { session } = payload
  const origin = session.origin ?? {}
  const who = [origin.user, origin.host].filter(Boolean).join('@')
  const where = origin.repo ? `${origin.repo}${origin.branch ? ` (${origin.branch})` : ''}` : ''
  const line = joinSlack(
    [
      slackText`${origin.agent || 'agent'} ${slackValue(session.session_id, 140)} ${slackHeadline(payload)}`,
      who ? slackText`by ${slackValue(who, 80)}` : null,
      where ? slackText`in ${where}` : null,
      session.progress
        ? slackText`${session.progress.completed}/${session.progress.total} done`
        : null,
      session.current?.content ? slackText`now: ${session.current.content}` : null,
    ],
    ' · '
  )
  const link = payload.url ? slackText` ${slackLink(payload.url, 'open')}` : null
  const text = joinSlack([line, link], '').text
  if (payload.slackDecision) {
    return JSON.stringify({ text, blocks: slackDecisionBlocks(text, payload.slackDecision) })
  }
  return JSON.stringify({ text })
}
