/**
 * @module alerts/slack-blocks
 * The Block Kit of a `format: slack` `session.waiting` alert whose wait holds a request, when
 * Slack interactivity is on (`SLACK_SIGNING_SECRET`): the alert's line, and Allow once / Deny
 * buttons whose clicks Slack posts to `/v1/integrations/slack/interactions` (docs/decisions.md).
 */

/** What the buttons answer: the tenant, session and request (the button's `value`). */
export interface SlackDecisionTarget {
  tenant: string
  session_id: string
  request_id: string
  /** The tool the agent asks for, or null. */
  tool: string | null
}

/** Slack text with `&`, `<` and `>` escaped: no mention, link or formatting from a value. */
const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * The blocks: the line (already Slack text), what is asked, and the two buttons.
 * @param line - the alert's one line, as `slackBody` made it
 * @param target - what the buttons answer
 */
export function slackDecisionBlocks(line: string, target: SlackDecisionTarget): unknown[] {
  const value = JSON.stringify({ t: target.tenant, s: target.session_id, r: target.request_id })
  const asks = target.tool ? `Asks to use *${escape(target.tool).slice(0, 200)}*` : 'Asks you'
  return [
    { type: 'section', text: { type: 'mrkdwn', text: line } },
    { type: 'context', elements: [{ type: 'mrkdwn', text: asks }] },
    {
      type: 'actions',
      block_id: 'agent-todos-decide',
      elements: [
        {
          type: 'button',
          action_id: 'decide_allow',
          style: 'primary',
          text: { type: 'plain_text', text: 'Allow once' },
          value,
        },
        {
          type: 'button',
          action_id: 'decide_deny',
          style: 'danger',
          text: { type: 'plain_text', text: 'Deny' },
          value,
        },
      ],
    },
  ]
}
