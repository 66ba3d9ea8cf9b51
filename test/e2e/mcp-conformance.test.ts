/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
 * test/agents/package.json) against the real server, at every protocol revision the server
 * speaks. The suite needs Node 22 (it imports `fs.globSync`); the project runs on Node 20, so the
 * suite runs under `npx -p node@22.23.3` (npm's `node` package), the one download this test makes.
 *
 * The suite is written for its own reference server: many scenarios call that server's fixture
 * tools, resources and prompts (`test_simple_text`, `test://static-text`, ...). Those do not
 * apply here and are listed below with the reason; every other scenario must pass, check by
 * check. The suite sends no custom header, like most MCP hosts: its tool calls get the session
 * a header-less client gets (docs/mcp.md), the MCP session on the 2025 revisions and a session
 * minted for the call on 2026-07-28.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startServer, type ServerProcess } from './server-process.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SUITE_DIR = join(ROOT, 'test/agents/node_modules/@modelcontextprotocol/conformance')
const SUITE_VERSION = '0.2.0-alpha.12'
const NODE_22 = 'node@22.23.3'

/** The runs: one per protocol revision, each with the scenarios that apply and must pass. */
const RUNS: { revision: string; args: string[]; applicable: string[] }[] = [
  {
    revision: '2025-03-26',
    args: ['--spec-version', '2025-03-26'],
    applicable: ['server-session-lifecycle'],
  },
  {
    revision: '2025-06-18',
    args: ['--spec-version', '2025-06-18'],
    applicable: [
      'server-initialize',
      'server-session-lifecycle',
      'ping',
      'tools-list',
      'resources-list',
    ],
  },
  {
    revision: '2025-11-25',
    args: ['--spec-version', '2025-11-25'],
    applicable: [
      'server-initialize',
      'server-session-lifecycle',
      'ping',
      'tools-list',
      'resources-list',
      'server-sse-multiple-streams',
      'dns-rebinding-protection',
    ],
  },
  {
    revision: '2026-07-28',
    args: ['--requirements', '2026-07-28'],
    applicable: [
      'server-stateless',
      'tools-list',
      'resources-list',
      'server-sse-multiple-streams',
      'sep-2164-resource-not-found',
      'dns-rebinding-protection',
      'caching',
      'http-header-validation',
      'input-required-result-unsupported-methods',
    ],
  },
]

/** Checks of applicable scenarios that cannot be exercised here, by check id. */
const UNTESTABLE_CHECKS: Record<string, string> = {
  'sep-2575-server-rejects-undeclared-capability':
    "needs the suite's diagnostic tool test_missing_capability",
  'sep-2575-missing-capability-http-400':
    "needs the suite's diagnostic tool test_missing_capability",
  'sep-2575-http-server-no-independent-requests-on-stream':
    "needs the suite's diagnostic tool test_streaming_elicitation",
  'sep-2575-server-no-log-without-loglevel': "needs the suite's diagnostic tool test_logging_tool",
  'sep-2549-prompts-list-caching-hints':
    'the server declares no prompts capability, so prompts/list is Method not found (-32601), as it must be',
}

/** Scenarios that do not apply to this server, and why. */
const NOT_APPLICABLE: [RegExp, string][] = [
  [
    /^tools-call-|^elicitation-sep|^json-schema-2020-12$/,
    "calls the reference server's fixture tools (test_simple_text, test_elicitation, ...); this server's tools are its dialects'",
  ],
  [
    /^input-required-result-/,
    "calls the reference server's input_required fixture tools; no tool here asks the client for input (the unsupported-methods scenario does apply)",
  ],
  [
    /^http-custom-header-server-validation$/,
    'needs a tool with x-mcp-header parameters; the dialect tools have none',
  ],
  [
    /^resources-read-(text|binary)$|^resources-templates-read$/,
    "reads the reference server's fixture resources (test://static-text, test://template/{id}/data)",
  ],
  [/^prompts-/, 'the server has no prompts (and does not declare the capability)'],
  [/^completion-complete$/, 'the server declares no completions capability'],
  [/^logging-set-level$/, 'the server declares no logging capability'],
  [
    /^resources-(un)?subscribe$/,
    'the server declares no resource subscriptions (a stateless endpoint has no stream to notify on)',
  ],
  [/^tasks-/, 'the tasks extension (io.modelcontextprotocol/tasks) is not implemented'],
]

interface Check {
  id: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO'
  errorMessage?: string
}

/** Runs the suite once; resolves with the checks of each scenario that ran. */
async function runSuite(url: string, args: string[]): Promise<Map<string, Check[]>> {
  const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'))
  const npx = join(dirname(process.execPath), 'npx')
  const entry = join(SUITE_DIR, 'dist/index.js')
  const child = spawn(
    npx,
    ['-y', '-p', NODE_22, 'node', entry, 'server', '--url', url, '-o', out, ...args],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }
  )
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  await once(child, 'exit')
  try {
    const results = new Map<string, Check[]>()
    for (const dir of readdirSync(out)) {
      const name = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(dir)?.[1]
      if (!name) continue
      results.set(name, JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[])
    }
    assert.ok(results.size > 0, `the suite ran no scenario:\n${output}`)
    return results
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}

describe(`MCP conformance suite ${SUITE_VERSION} against the real server`, () => {
  let server: ServerProcess
  let url: string

  before(async () => {
    const pinned = JSON.parse(readFileSync(join(SUITE_DIR, 'package.json'), 'utf8')) as {
      version: string
    }
    assert.equal(pinned.version, SUITE_VERSION)
    // no keys: the suite sends none (its DNS-rebinding scenario is about open localhost servers)
    server = await startServer({})
    url = `${server.url}/mcp`
  })
  after(async () => {
    await server?.stop()
  })

  for (const run of RUNS) {
    it(
      `Should pass every scenario that applies at ${run.revision}`,
      { timeout: 300_000 },
      async () => {
        const results = await runSuite(url, run.args)
        for (const name of run.applicable) {
          assert.ok(results.has(name), `${run.revision}: scenario ${name} did not run`)
        }
        for (const [name, checks] of results) {
          if (!run.applicable.includes(name)) {
            const reason = NOT_APPLICABLE.find(([pattern]) => pattern.test(name))
            assert.ok(reason, `${run.revision}: scenario ${name} is neither applicable nor excused`)
            continue
          }
          for (const check of checks) {
            if (check.status !== 'FAILURE' && check.status !== 'WARNING') continue
            assert.ok(
              UNTESTABLE_CHECKS[check.id],
              `${run.revision} ${name}: ${check.id} ${check.status}: ${check.errorMessage}`
            )
          }
          assert.ok(
            checks.some((check) => check.status === 'SUCCESS'),
            `${run.revision} ${name}: no check passed`
          )
        }
      }
    )
  }
})
