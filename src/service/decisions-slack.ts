/**
 * @module service/decisions-slack
 * A click on a Slack alert's Allow / Deny button (docs/decisions.md "Slack"): the Slack user
 * becomes a person by their email (`users.info` through Slack's own Web API client, with
 * `SLACK_BOT_TOKEN`), answers under the same rules as the API (`decide`), and the message is
 * updated through the click's `response_url`. The HTTP adapter verifies the signature and
 * acknowledges within Slack's 3 s before this runs.
 */
import { WebClient } from '@slack/web-api'
import { decide, type DecisionDeps } from './decisions.js'
import { ServiceError } from './errors.js'

/** What a button's `value` carries: the tenant, the session and the request. */
export interface ButtonValue {
  t: string
  s: string
  r: string
}

/** The click, as the adapter read it from the signed `payload`. */
export interface SlackClick {
  userId: string
  /** `decide_allow` or `decide_deny`. */
  actionId: string
  value: ButtonValue
  responseUrl: string | null
}

/** Slack's side: the bot token and Web API base URL (a local stand-in in tests). */
export interface SlackDeps {
  botToken?: string
  apiUrl?: string
  /** Posts a message update to a `response_url` (fetch, unless a test gives its own). */
  respond?: (url: string, body: Record<string, unknown>) => Promise<void>
}

/** Slack text: `&`, `<` and `>` escaped, so no mention, link or formatting comes from a value. */
export const slackEscape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * The email of a Slack user (`users.info`, scope `users:read.email`), or null.
 * @param slack - the bot token and API URL
 * @param userId - the Slack user
 */
async function emailOf(slack: SlackDeps, userId: string): Promise<string | null> {
  if (!slack.botToken) return null
  const client = new WebClient(slack.botToken, {
    ...(slack.apiUrl ? { slackApiUrl: slack.apiUrl.replace(/\/?$/, '/') } : {}),
    retryConfig: { retries: 0 },
    timeout: 2500,
  })
  const info = await client.users.info({ user: userId })
  const email = info.user?.profile?.email
  return typeof email === 'string' && email !== '' ? email : null
}

const postJson = async (url: string, body: Record<string, unknown>) => {
  await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  })
}

const OUTCOME_TEXT: Record<string, string> = {
  allowed: 'Allowed',
  denied: 'Denied',
  answered: 'Answered',
}

/**
 * Answers a click: the Slack user's email is the person, who must be allowed to answer the
 * session (its verified person; never anyone else). The message is replaced with the outcome,
 * or told why nothing was answered (only the clicker sees that).
 * @param deps - what answering runs on
 * @param slack - Slack's side
 * @param click - the click
 * @returns the outcome, or the refusal's code
 */
export async function answerSlackClick(
  deps: DecisionDeps,
  slack: SlackDeps,
  click: SlackClick
): Promise<string> {
  const respond = slack.respond ?? postJson
  const tell = async (body: Record<string, unknown>) => {
    if (click.responseUrl) await respond(click.responseUrl, body).catch(() => undefined)
  }
  const email = await emailOf(slack, click.userId).catch(() => null)
  if (!email) {
    await tell({
      response_type: 'ephemeral',
      replace_original: false,
      text: 'agent-todos could not tell who you are (no email for your Slack user): nothing was answered.',
    })
    return 'unknown-user'
  }
  try {
    const reply = await decide(deps, {
      key: { tenant: click.value.t, sessionId: click.value.s },
      caller: { tenant: click.value.t, role: 'agent', user: email, via: 'slack', loopback: false },
      input: {
        request_id: click.value.r,
        decision: click.actionId === 'decide_allow' ? 'allow' : 'deny',
        ...(click.actionId === 'decide_allow' ? {} : { message: `Denied from Slack by ${email}` }),
      },
      channel: 'slack',
    })
    await tell({
      replace_original: true,
      text: `${OUTCOME_TEXT[reply.outcome] ?? reply.outcome} by ${slackEscape(email)} · ${slackEscape(click.value.s)}`,
    })
    return reply.outcome
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error
    await tell({
      response_type: 'ephemeral',
      replace_original: false,
      text: `Nothing was answered: ${slackEscape(error.message)}`,
    })
    return error.code
  }
}
