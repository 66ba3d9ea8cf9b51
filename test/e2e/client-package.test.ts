/**
 * The client ships on its own: `npm pack ./packages/client` into an empty project installs the
 * client, openapi-fetch (with the helper types it needs) and eventsource-parser (the CLI's) and
 * nothing else (the frameworks of its adapters are optional peers), the installed package talks to the real server, and its `agent-todos` bin (watch,
 * observe) runs without the server's native dependencies.
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
      'eventsource-parser',
      'openapi-fetch',
      'openapi-typescript-helpers',
    ])
    const manifest = JSON.parse(
      readFileSync(join(modules, 'agent-todos-client', 'package.json'), 'utf8')
    )
    assert.deepEqual(Object.keys(manifest.dependencies), ['eventsource-parser', 'openapi-fetch'])
    // the frameworks of the adapters are peers the consumer installs, each optional
    const peers = ['@langchain/core', '@openai/agents', 'ai', 'langchain']
    assert.deepEqual(Object.keys(manifest.peerDependencies).sort(), peers)
    for (const peer of peers)
      assert.deepEqual(manifest.peerDependenciesMeta[peer], { optional: true })
    assert.equal(
      readFileSync(join(modules, 'agent-todos-client', 'LICENSE'), 'utf8'),
      readFileSync(join(ROOT, 'LICENSE'), 'utf8'),
      'the package ships the repository LICENSE'
    )

    // resolved as a consumer resolves it, through the package's exports
    const entry = pathToFileURL(join(project, 'index.mjs')).href
    writeFileSync(join(project, 'index.mjs'), "export * from 'agent-todos-client'\n")
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

    // each adapter is its own export; without its framework installed it fails on that import
    for (const [subpath, framework] of [
      ['langchain', 'langchain'],
      ['ai-sdk', 'ai'],
      ['openai-agents', '@openai/agents'],
    ]) {
      const file = join(project, `${subpath}.mjs`)
      writeFileSync(file, `export * from 'agent-todos-client/${subpath}'\n`)
      await assert.rejects(import(pathToFileURL(file).href), (error: NodeJS.ErrnoException) => {
        assert.equal(error.code, 'ERR_MODULE_NOT_FOUND')
        assert.match(error.message, new RegExp(`'${framework}`))
        return true
      })
    }
  })

  it('Should run the installed agent-todos bin: --help, and watch --once against the server', async () => {
    const project = join(work, 'project')
    const bin = join(project, 'node_modules', '.bin', 'agent-todos')
    const help = await run(bin, ['--help'], { cwd: project, timeout: 15_000 })
    assert.match(help.stdout, /^Usage: agent-todos watch/m)
    assert.match(help.stdout, /agent-todos observe/)
    const version = await run(bin, ['--version'], { cwd: project, timeout: 15_000 })
    assert.equal(
      version.stdout.trim(),
      JSON.parse(readFileSync(join(ROOT, 'packages/client/package.json'), 'utf8')).version
    )
    const once = await run(
      bin,
      ['watch', 'packaged', '--once', '--no-color', '--url', server.url],
      {
        cwd: project,
        timeout: 15_000,
      }
    )
    assert.match(once.stdout, /packaged/)
  })
})
