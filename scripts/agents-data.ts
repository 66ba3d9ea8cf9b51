/**
 * The agents' data the clients read, generated from the descriptors (src/agents) by
 * `npm run client`: `src/client/agents.ts` for the CLI (published in the client package, which
 * imports only src/client) and `src/http/dashboard/app/agents.js` for the dashboard (static
 * files). Generated rather than served (`GET /v1/agents`): the CLI's badges and `observe`'s
 * routes are needed synchronously and before any request (observe picks its route from the
 * command it runs), and neither client then depends on one more request; a source a newer server
 * adds still reads as its name.
 */
import { format, resolveConfig } from 'prettier'
import { AGENT_LIST } from '../src/agents/index.js'

export const AGENTS_TS_PATH = 'src/client/agents.ts'
export const AGENTS_JS_PATH = 'src/http/dashboard/app/agents.js'

/** What a client knows of one observed agent. */
export interface AgentData {
  source: string
  name: string
  /** The badge; the terminal's wide and narrow ones. */
  label: string
  terminal: string
  short: string
  prefix: string
  routes: string[]
  todoToolsSwitch: string | null
}

/** Every agent's data, in the registry's order. */
export function agentsData(): AgentData[] {
  return AGENT_LIST.map((agent) => {
    const label = agent.labels?.badge ?? agent.name
    return {
      source: agent.source,
      name: agent.name,
      label,
      terminal: agent.labels?.terminal ?? label,
      short: agent.labels?.short ?? agent.prefix,
      prefix: agent.prefix,
      routes: agent.routes.map((route) => route.path),
      todoToolsSwitch: agent.todoToolsSwitch ?? null,
    }
  })
}

/** The agents `observe` runs, by kind: the route its stream goes to and its session prefix. */
function observeData() {
  const kinds: Record<string, { route: string; prefix: string; programs: readonly string[] }> = {}
  for (const agent of AGENT_LIST) {
    if (agent.observe) {
      kinds[agent.observe.kind] = {
        route: agent.routes[0].path,
        prefix: agent.prefix,
        programs: agent.observe.programs,
      }
    }
  }
  return kinds
}

/** The text as the repository's Prettier settings write it (lint checks it). */
async function pretty(path: string, text: string): Promise<string> {
  return format(text, { ...(await resolveConfig(path)), filepath: path })
}

const HEADER =
  '// Generated from src/agents by `npm run client` (scripts/agents-data.ts): do not edit.\n'

const bySource = () => Object.fromEntries(agentsData().map((a) => [a.source, a]))

/** The text of src/client/agents.ts. */
export function agentsTs(): Promise<string> {
  return pretty(
    AGENTS_TS_PATH,
    HEADER +
      '\n/** The observed agents by `source`: names, badges, routes, session prefix. */\n' +
      `export const AGENTS = ${JSON.stringify(bySource(), null, 2)} as const satisfies Record<string, AgentData>\n` +
      '\n/** What a client knows of one observed agent. */\n' +
      "export interface AgentData {\n  source: string\n  name: string\n  /** The badge. */\n  label: string\n  /** A terminal's wide badge. */\n  terminal: string\n  /** A narrow terminal's badge. */\n  short: string\n  prefix: string\n  routes: readonly string[]\n  /** What turns its todo tools on, when they can be off. */\n  todoToolsSwitch: string | null\n}\n" +
      '\n/** The agents `agent-todos observe` runs, by kind: the route of their stream, their prefix, their programs. */\n' +
      `export const OBSERVE_AGENTS = ${JSON.stringify(observeData(), null, 2)} as const\n`
  )
}

/** The text of the dashboard's app/agents.js. */
export function agentsJs(): Promise<string> {
  return pretty(
    AGENTS_JS_PATH,
    HEADER +
      '\n/**\n * The observed agents by `source`: names, badges, routes, session prefix.\n' +
      ' * @type {Record<string, {source: string, name: string, label: string, terminal: string, short: string, prefix: string, routes: string[], todoToolsSwitch: string | null}>}\n */\n' +
      `export const AGENTS = ${JSON.stringify(bySource(), null, 2)}\n`
  )
}
