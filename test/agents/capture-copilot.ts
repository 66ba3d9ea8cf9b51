/**
 * Captures GitHub Copilot CLI's real output into test/fixtures/ingest/copilot/ (REAL-CAPTURES.md):
 * `node --import tsx test/agents/capture-copilot.ts [todos|permission|failures]`. Two runs of the todo script: one with
 * camelCase hooks, one with PascalCase hooks, each posting to a recorder; the `--output-format
 * json` stream of the first; the tool results the model stand-in got; the session DB's todos.
 * Temp paths are replaced by `/tmp/copilot-run` so the fixtures are stable.
 */
import { once } from 'node:events'
import { readdir, writeFile, mkdir } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { startChatCompletionsApi as startChatCompletions } from './chat-completions.js'
import {
  COPILOT_FAILURES,
  COPILOT_PERMISSION,
  COPILOT_SCRIPTS,
  COPILOT_TODOS,
  runCopilot,
} from './copilot.js'

const OUT = fileURLToPath(new URL('../fixtures/ingest/copilot/', import.meta.url))

async function recorder() {
  const bodies: unknown[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      try {
        bodies.push(JSON.parse(text))
      } catch {
        bodies.push(text)
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{}')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/v1/ingest/copilot`, bodies, server }
}

const scrub = (text: string, run: { home: string; cwd: string }) => {
  const root = run.home.replace(/\/home$/, '')
  return text.split(root).join('/tmp/copilot-run')
}

const ndjson = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join('\n') + '\n'

await mkdir(OUT, { recursive: true })
const only = process.argv[2]
// failures Copilot's own database reports: the stream only (no hook fires for a failed call)
if (only === undefined || only === 'failures') {
  const api = await startChatCompletions(COPILOT_SCRIPTS)
  const run = await runCopilot({ script: COPILOT_FAILURES, api })
  console.log('failures exit', run.code)
  await writeFile(join(OUT, 'real-failures-stream.jsonl'), scrub(run.stdout, run))
  await writeFile(
    join(OUT, 'real-failures-tool-results.json'),
    JSON.stringify(api.exchanges(COPILOT_FAILURES.name), null, 2) + '\n'
  )
  await run.cleanup()
  await api.close()
}
// the permission prompt: only sql is allowed, so `create` asks (camelCase and PascalCase hooks)
for (const casing of only === 'todos' || only === 'failures'
  ? []
  : (['camel', 'pascal'] as const)) {
  const api = await startChatCompletions(COPILOT_SCRIPTS)
  const hooks = await recorder()
  const run = await runCopilot({
    script: COPILOT_PERMISSION,
    api,
    hookUrl: hooks.url,
    casing,
    allow: ['--allow-tool', 'sql'],
  })
  console.log('permission', casing, 'exit', run.code, 'hooks', hooks.bodies.length)
  await writeFile(
    join(OUT, `real-permission-hooks-${casing}.ndjson`),
    scrub(ndjson(hooks.bodies), run)
  )
  const exchanges = api.exchanges(COPILOT_PERMISSION.name)
  if (casing === 'camel') {
    await writeFile(
      join(OUT, 'real-permission-tool-results.json'),
      JSON.stringify(exchanges, null, 2) + '\n'
    )
  }
  await run.cleanup()
  hooks.server.close()
  await api.close()
}
for (const casing of only === 'permission' || only === 'failures'
  ? []
  : (['camel', 'pascal'] as const)) {
  const api = await startChatCompletions(COPILOT_SCRIPTS)
  const hooks = await recorder()
  const run = await runCopilot({
    script: COPILOT_TODOS,
    api,
    hookUrl: hooks.url,
    casing,
    keep: true,
  })
  console.log(
    casing,
    'exit',
    run.code,
    run.signal,
    'timedOut',
    run.timedOut,
    'hooks',
    hooks.bodies.length
  )
  if (run.stderr) console.log(run.stderr.slice(0, 2000))
  await writeFile(join(OUT, `real-hooks-${casing}.ndjson`), scrub(ndjson(hooks.bodies), run))
  if (casing === 'camel') {
    await writeFile(join(OUT, 'real-stream.jsonl'), scrub(run.stdout, run))
    const exchanges = api.exchanges(COPILOT_TODOS.name)
    await writeFile(join(OUT, 'real-tool-results.json'), JSON.stringify(exchanges, null, 2) + '\n')
    const states = join(run.home, '.copilot/session-state')
    for (const id of await readdir(states)) {
      const path = join(states, id, 'session.db')
      try {
        const db = new Database(path, { readonly: true, fileMustExist: true })
        const dump = {
          schema: db
            .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .all(),
          todos: db.prepare('SELECT rowid, * FROM todos ORDER BY rowid').all(),
          todo_deps: db.prepare('SELECT rowid, * FROM todo_deps ORDER BY rowid').all(),
        }
        db.close()
        await writeFile(
          join(OUT, 'real-session-db-todos.json'),
          JSON.stringify(dump, null, 2) + '\n'
        )
      } catch (error) {
        console.log('no session.db in', id, (error as Error).message)
      }
    }
  }
  hooks.server.close()
  await api.close()
  console.log('kept', run.home)
}
