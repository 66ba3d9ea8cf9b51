/**
 * The client ships on its own: `npm pack ./packages/client` into an empty project installs the
 * client and openapi-fetch (with the helper types it needs) and nothing else, and the installed
 * package talks to the real server.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { startServer, type ServerProcess } from './server-process.js'

const run = promisify(execFile)
const ROOT = new URL('../..', import.meta.url).pathname
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

/** The packages a node_modules folder holds (scoped ones as `@scope/name`). */
function installed(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) =>
      name.startsWith('@') ? readdirSync(join(dir, name)).map((sub) => `${name}/${sub}`) : [name]
    )
    .sort()
}

describe('The agent-todos-client package', () => {
  let work: string
  let server: ServerProcess
  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'agent-todos-client-'))
    server = await startServer()
  })
  after(async () => {
    await server.stop()
    rmSync(work, { recursive: true, force: true })
  })

  it('Should install from its tarball into an empty project with only openapi-fetch', async () => {
    const packed = await run(npm, ['pack', './packages/client', '--pack-destination', work], {
      cwd: ROOT,
    })
    const tarball = join(work, packed.stdout.trim().split('\n').at(-1)!)
    const project = join(work, 'project')
    await run('mkdir', [project])
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true }))
    // the registry is only asked for what the local cache lacks
    await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], {
      cwd: project,
    })
    const modules = join(project, 'node_modules')
    assert.deepEqual(installed(modules), [
      'agent-todos-client',
      'openapi-fetch',
      'openapi-typescript-helpers',
    ])
    const manifest = JSON.parse(
      readFileSync(join(modules, 'agent-todos-client', 'package.json'), 'utf8')
    )
    assert.deepEqual(Object.keys(manifest.dependencies), ['openapi-fetch'])

    const entry = pathToFileURL(join(modules, 'agent-todos-client', 'dist', 'index.js')).href
    const client = await import(entry)
    const todos = client.createAgentTodosClient({ baseUrl: server.url })
    const tools = await client.listTools(todos, { dialect: 's03', format: 'openai' })
    assert.equal(tools[0].function.name, 'todo')
    const reply = await todos.POST('/v1/sessions/{session_id}/rounds', {
      params: { path: { session_id: 'packaged' } },
      body: { tool_calls: [{ id: 't1', name: 'todo', input: { items: [] } }] },
    })
    assert.equal(reply.response.status, 200)
    assert.equal(reply.data.results[0].content, 'No todos.')
  })
})
