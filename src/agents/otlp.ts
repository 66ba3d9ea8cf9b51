/**
 * @module agents/otlp
 * OpenTelemetry: the agents' own telemetry, exported over OTLP/HTTP to `POST /v1/otlp/v1/logs`
 * and `/v1/otlp/v1/traces` (src/http/routes/otlp.ts; docs/otel.md). One source, `otlp`, for
 * three agents: each record's agent gives the session its prefix and its todo tools, so a session
 * fed by an agent's hooks and by its telemetry is one session (`codex:<conversation.id>`,
 * `gemini:<session.id>`, `claude:<session.id>`), and `origin.agent` names the agent.
 */
import type { ObservedAgent } from '../ingest/agent.js'
import type { OtlpFamily } from '../ingest/otlp/index.js'
import { CLAUDE_FAMILY } from './claude.js'
import { COUNTS_REPLY } from './schemas.js'
import type { AgentDescriptor } from './types.js'

/**
 * A person's edit of a list telemetry feeds reaches the model only once Claude Code's hooks feed
 * the session too (their reply carries it); telemetry itself is one-way.
 */
const EDITS = 'hooks' as const

/** What ingest reads of each agent whose telemetry the service takes. */
export const OTLP_AGENTS: Readonly<Record<OtlpFamily, ObservedAgent>> = {
  claude: { source: 'otlp', ...CLAUDE_FAMILY, edits: EDITS },
  codex: {
    source: 'otlp',
    prefix: 'codex',
    family: 'codex',
    defaultDialect: 'codex-plan',
    edits: EDITS,
  },
  gemini: {
    source: 'otlp',
    prefix: 'gemini',
    family: 'gemini',
    defaultDialect: 'gemini-todos',
    edits: EDITS,
  },
}

/**
 * The `otlp` source in the registry. Its routes are OTLP's own (not `/v1/ingest/…` bodies), so
 * they are registered by src/http/routes/otlp.ts; the facts here are the Claude family's, which
 * each delivery replaces with its records' agent (`OTLP_AGENTS`).
 */
export const otlp: AgentDescriptor<'otlp'> = {
  ...OTLP_AGENTS.claude,
  source: 'otlp',
  name: 'OpenTelemetry (Claude Code, Codex CLI, Gemini CLI)',
  // its sessions are the agents' own: a badge of its own only for a session it alone fed
  labels: { badge: 'otlp', short: 'otlp' },
  routes: [],
  lifecycle: { starts: [], ends: [], waits: [] },
  reply: COUNTS_REPLY,
}
