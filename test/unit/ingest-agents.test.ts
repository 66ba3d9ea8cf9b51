import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AGENT_LIST, AGENTS, editRefusal } from '../../src/agents/index.js'
import { OTLP_AGENTS } from '../../src/agents/otlp.js'
import { OBSERVED_SOURCES, newSession, type Session } from '../../src/core/session.js'
import { dialectsOf } from '../../src/dialects/observe/index.js'
import { getDialect } from '../../src/dialects/registry.js'
import { newObserved } from '../../src/ingest/apply.js'

const outcome = { session_id: 'claude:s1', version: 3, applied: 1, ignored: 0 }

describe('agents: one descriptor per observed source', () => {
  it('Should have a descriptor for every source, under its own name, in the order of the sources', () => {
    assert.deepEqual(
      AGENT_LIST.map((agent) => agent.source),
      [...OBSERVED_SOURCES]
    )
    for (const source of OBSERVED_SOURCES) assert.equal(AGENTS[source].source, source)
  })

  it("Should default each agent to a dialect of its family's todo tools", () => {
    for (const agent of AGENT_LIST) {
      assert.ok(getDialect(agent.defaultDialect), agent.source)
      assert.ok(dialectsOf(agent.family).includes(agent.defaultDialect), agent.source)
    }
  })

  it('Should give every route its own path under /v1/ingest/, and the Claude agents one session space', () => {
    const paths = AGENT_LIST.flatMap((agent) => agent.routes.map((route) => route.path))
    assert.equal(new Set(paths).size, paths.length)
    for (const path of paths) assert.match(path, /^\/v1\/ingest\//)
    assert.equal(AGENTS['claude-code'].prefix, AGENTS['claude-agent-sdk'].prefix)
    // OpenTelemetry has no route here and no session space of its own: it feeds the agents' own
    const hooked = AGENT_LIST.filter((agent) => agent.source !== 'otlp')
    assert.equal(new Set(hooked.map((agent) => agent.prefix)).size, hooked.length - 1)
    assert.deepEqual(AGENTS.otlp.routes, [])
    assert.equal(OTLP_AGENTS.claude.prefix, AGENTS['claude-code'].prefix)
    assert.equal(OTLP_AGENTS.codex.prefix, AGENTS.codex.prefix)
    assert.equal(OTLP_AGENTS.gemini.prefix, AGENTS['gemini-cli'].prefix)
  })

  it("Should shape Claude Code's reply as a hook reply, and every other agent's as counts", () => {
    const hook = AGENTS['claude-code'].reply
    assert.deepEqual(hook.of({ ...outcome, edit: null }), {})
    assert.deepEqual(hook.of({ ...outcome, edit: 'the list' }), {
      hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'the list' },
    })
    for (const agent of AGENT_LIST.filter((a) => a.source !== 'claude-code')) {
      assert.deepEqual(agent.reply.of({ ...outcome, edit: 'the list' }), outcome, agent.source)
    }
  })

  it("Should take a person's edit only where a reply can carry it to the model", () => {
    const observed = (source: (typeof OBSERVED_SOURCES)[number], hooks?: true): Session => ({
      ...newSession({ tenant: 't', sessionId: 's' }, 'claude-tasks', { reminder: false }, 0),
      observed: { ...newObserved(source, null), ...(hooks ? { hooks } : {}) },
    })
    assert.equal(editRefusal(null), null)
    assert.equal(editRefusal(observed('claude-code')), null)
    assert.equal(editRefusal(observed('claude-agent-sdk', true)), null)
    assert.match(editRefusal(observed('claude-agent-sdk'))!, /no Claude Code hook feeds/)
    for (const source of ['codex', 'gemini-cli', 'openhands'] as const) {
      assert.match(editRefusal(observed(source, true))!, /owns this list: its own todo tool/)
    }
  })
})
