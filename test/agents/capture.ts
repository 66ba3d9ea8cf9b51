/**
 * Records what the real agent CLIs emit to an observer, run offline against the scripted model
 * stand-in, with a recorder in place of the service, and saves it under test/fixtures/ingest/:
 *
 * - `<source>/real-<name>.json`: the hook inputs the CLI posted (Claude Code's own HTTP hooks and
 *   its SessionStart command hook; Codex and Gemini command hooks via examples/observe), in
 *   arrival order, as a JSON array of bodies;
 * - `<source>/real-<name>.ndjson`: the stream `agent-todos observe` forwarded (Claude stream-json,
 *   `codex exec --json`, Gemini stream-json), every line as the CLI printed it;
 * - `<source>/real-<name>.tool-results.json`: each todo tool call the stand-in made and the tool
 *   result text the CLI sent back (the ground truth a replay asserts against).
 *
 * Temp paths are replaced with /home/user (HOME) and /home/user/project (cwd); nothing else is
 * changed. Run: `node --import tsx test/agents/capture.ts [scenario…]`.
 */
import { execFileSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ROOT, cliPath, runAgent, type AgentName, type AgentRun } from './agents.js'
import { startModelApi, type ModelApi, type ToolExchange } from './model-api.js'
import { startRecorder } from './recorder.js'
import { SCRIPTS } from './scripts.js'
import { exchangesWithResults } from './truth.js'

export interface Scenario {
  /** File stem: real-<name>. */
  name: string
  agent: AgentName
  script: string
  tasks?: boolean
  maxTurns?: number
  /** Where the hook capture goes, and the stream capture. */
  hookSource: string
  streamSource: string
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'todowrite',
    agent: 'claude',
    script: 'claude-todowrite',
    hookSource: 'claude-code',
    streamSource: 'claude-agent-sdk',
  },
  {
    name: 'tasks',
    agent: 'claude',
    script: 'claude-tasks',
    tasks: true,
    hookSource: 'claude-code',
    streamSource: 'claude-agent-sdk',
  },
  {
    name: 'subagent',
    agent: 'claude',
    script: 'claude-subagent',
    hookSource: 'claude-code',
    streamSource: 'claude-agent-sdk',
  },
  {
    name: 'max-turns',
    agent: 'claude',
    script: 'claude-max-turns',
    maxTurns: 3,
    hookSource: 'claude-code',
    streamSource: 'claude-agent-sdk',
  },
  {
    name: 'plan',
    agent: 'codex',
    script: 'codex-plan',
    hookSource: 'codex',
    streamSource: 'codex',
  },
  {
    name: 'todos',
    agent: 'gemini',
    script: 'gemini-todos',
    hookSource: 'gemini-cli',
    streamSource: 'gemini-cli',
  },
]

const TODO_TOOLS = new Set([
  'TodoWrite',
  'TaskCreate',
  'TaskUpdate',
  'TaskList',
  'TaskGet',
  'update_plan',
  'write_todos',
])

/** Replaces the run's temp paths (they differ on every run) with fixed ones. */
export function scrub(text: string, run: AgentRun): string {
  const slug = (path: string) => path.replace(/[^A-Za-z0-9]/g, '-')
  return text
    .split(slug(run.cwd))
    .join(slug('/home/user/project'))
    .split(run.cwd)
    .join('/home/user/project')
    .split(run.home)
    .join('/home/user')
    .split(run.root)
    .join('/home/user')
}

const toolResults = (api: ModelApi, run: AgentRun) =>
  exchangesWithResults(api, Object.keys(SCRIPTS), run.agent === 'claude' ? run.stdout : undefined)
    .filter((e) => TODO_TOOLS.has(e.name))
    .map(({ id, name, input, result, isError, script }: ToolExchange) => ({
      script,
      id,
      name,
      input,
      result: result ?? null,
      is_error: isError ?? null,
    }))

async function capture(scenario: Scenario): Promise<string[]> {
  const written: string[] = []
  const script = SCRIPTS[scenario.script]
  const save = async (source: string, file: string, text: string) => {
    const dir = join(ROOT, 'test/fixtures/ingest', source)
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, file), text)
    written.push(`${source}/${file}`)
  }
  const runOnce = async (mode: 'hooks' | 'observe') => {
    const api = await startModelApi()
    const recorder = await startRecorder()
    const run = await runAgent({
      agent: scenario.agent,
      script,
      api,
      service: { url: recorder.url, key: 'capture-key-not-a-secret' },
      hooks: mode === 'hooks',
      observe: mode === 'observe',
      tasks: scenario.tasks,
      maxTurns: scenario.maxTurns,
      timeoutMs: 90_000,
    })
    await api.close()
    await recorder.close()
    if (run.timedOut) throw new Error(`${scenario.name} (${mode}) timed out:\n${run.stderr}`)
    return { run, api, recorder }
  }

  const hooks = await runOnce('hooks')
  const bodies = hooks.recorder
    .posts('/v1/ingest/')
    .map((r) => JSON.parse(scrub(r.body, hooks.run)) as unknown)
  if (!bodies.length) throw new Error(`${scenario.name}: no hook reached the recorder`)
  await save(
    scenario.hookSource,
    `real-${scenario.name}.json`,
    JSON.stringify(bodies, null, 2) + '\n'
  )
  await save(
    scenario.hookSource,
    `real-${scenario.name}.tool-results.json`,
    JSON.stringify(toolResults(hooks.api, hooks.run), null, 2) + '\n'
  )
  await hooks.run.cleanup()

  const streamed = await runOnce('observe')
  const lines = streamed.recorder
    .posts('/v1/ingest/')
    .flatMap((r) => r.body.split('\n').filter(Boolean))
  if (!lines.length) throw new Error(`${scenario.name}: observe forwarded nothing`)
  await save(
    scenario.streamSource,
    `real-${scenario.name}.ndjson`,
    scrub(lines.join('\n'), streamed.run) + '\n'
  )
  const sameDir = scenario.streamSource === scenario.hookSource
  await save(
    scenario.streamSource,
    `real-${scenario.name}${sameDir ? '-stream' : ''}.tool-results.json`,
    JSON.stringify(toolResults(streamed.api, streamed.run), null, 2) + '\n'
  )
  await streamed.run.cleanup()
  return written
}

const wanted = process.argv.slice(2)
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  for (const scenario of SCENARIOS) {
    if (wanted.length && !wanted.includes(scenario.name)) continue
    if (!cliPath(scenario.agent)) {
      console.error(`skip ${scenario.name}: ${scenario.agent} is not installed`)
      continue
    }
    const files = await capture(scenario)
    // the repo's format, so `npm run format:check` stays clean
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/prettier/bin/prettier.cjs'),
        '--write',
        '--log-level',
        'warn',
        ...files.map((f) => join(ROOT, 'test/fixtures/ingest', f)),
      ],
      { stdio: 'inherit' }
    )
    console.log(`${scenario.name}: ${files.join(', ')}`)
  }
}
