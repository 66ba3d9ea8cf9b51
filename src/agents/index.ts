/**
 * @module agents
 * The registry of observed agents: one descriptor per source (`core/session` OBSERVED_SOURCES),
 * each in its own file. The ingest routes are registered from it, ingest reads its facts, and a
 * person's edit of an observed list is allowed or refused by it.
 */
import type { ObservedSource, Session } from '../core/session.js'
import { acp } from './acp.js'
import { withClaims } from './claims.js'
import { claudeAgentSdk } from './claude-agent-sdk.js'
import { claudeCode } from './claude-code.js'
import { codex } from './codex.js'
import { copilot } from './copilot.js'
import { geminiCli } from './gemini-cli.js'
import { opencode, kilo } from './opencode.js'
import { openhands } from './openhands.js'
import { otlp } from './otlp.js'
import { qwenCode } from './qwen-code.js'
import type { AgentDescriptor } from './types.js'

export type { AgentDescriptor, IngestRoute, Lifecycle, ReplyShape } from './types.js'

/**
 * Every observed agent, by source: a source without a descriptor does not compile. An agent others
 * mimic refuses the bodies they claim as their own (`agents/claims`).
 */
export const AGENTS: { readonly [S in ObservedSource]: AgentDescriptor<S> } = withClaims({
  'claude-code': claudeCode,
  'claude-agent-sdk': claudeAgentSdk,
  codex,
  'gemini-cli': geminiCli,
  openhands,
  'qwen-code': qwenCode,
  opencode,
  kilo,
  acp,
  copilot,
  otlp,
})

/** The agents in the order their routes are registered (and documented). */
export const AGENT_LIST: readonly AgentDescriptor[] = Object.values(AGENTS)

/**
 * Why a person cannot edit this observed session's list, or null when the edit can be handed to
 * the agent (its own replies, or Claude Code hooks feeding the session, carry it) or the session
 * is not observed.
 * @param session - the stored session
 */
export function editRefusal(session: Session | null): string | null {
  const observed = session?.observed
  if (!observed) return null
  const { edits } = AGENTS[observed.source]
  if (edits === 'never') {
    return `The agent (${observed.source}) owns this list: its own todo tool writes it, and the service only observes it.`
  }
  if (edits === 'reply' || observed.hooks) return null
  // a stream or SDK forwarder only reports: an edit would wait for a hook reply that never comes
  return `The agent (${observed.source}) owns this list, and no Claude Code hook feeds this session, so an edit could not reach the model: add the PostToolUse HTTP hook (docs/observe.md) to edit its list here.`
}
