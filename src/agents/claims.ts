/**
 * @module agents/claims
 * Telling agents' look-alike bodies apart: Copilot CLI's and Qwen Code's PascalCase hook inputs
 * mimic Claude Code's. Each agent's own descriptor says what its shape is (`claims`); an agent
 * that others mimic (`mimicked`) has its routes refuse, before they read anything, a body another
 * agent claims, naming that agent's route. No descriptor imports another agent's parser.
 */
import type { ObservedSource } from '../core/session.js'
import { IngestWrongAgentError } from '../ingest/events.js'
import type { AgentDescriptor, IngestRoute } from './types.js'

/**
 * The route with the claims of the other agents checked first (a JSON body only: the route's own
 * parse refuses the rest with its own words).
 * @param agent - the mimicked agent
 * @param route - one of its routes
 * @param claimants - the agents that can tell their own bodies, in registry order
 */
function refusingClaimed(
  agent: AgentDescriptor,
  route: IngestRoute,
  claimants: readonly AgentDescriptor[]
): IngestRoute {
  return {
    ...route,
    parse(body, params) {
      if (body.kind === 'json') {
        const owner = claimants.find((other) => other.claims!(body.value))
        if (owner) {
          const path = owner.routes[0].path
          throw new IngestWrongAgentError(
            `This is a ${owner.name} hook input, not ${agent.name}'s: post it to ${path}.`,
            path
          )
        }
      }
      return route.parse(body, params)
    },
  }
}

/**
 * The registry with every mimicked agent's routes refusing the bodies other agents claim.
 * @param agents - every descriptor, by source
 */
export function withClaims<T extends { readonly [S in ObservedSource]: AgentDescriptor<S> }>(
  agents: T
): T {
  const list: readonly AgentDescriptor[] = Object.values(agents)
  const out: Record<string, AgentDescriptor> = {}
  for (const agent of list) {
    const claimants = list.filter((other) => other !== agent && other.claims)
    out[agent.source] = agent.mimicked
      ? { ...agent, routes: agent.routes.map((r) => refusingClaimed(agent, r, claimants)) }
      : agent
  }
  return out as T
}
