/**
 * The adapters' tests' shared parts. Their examples are docs/clients.md's: each examples/adapters/<name>.ts is one of the
 * page's ```ts blocks, byte for byte, so the test that runs the file runs what the page shows.
 */
import { readFileSync } from 'node:fs'
import { after, before, it } from 'node:test'
import assert from 'node:assert/strict'
import { startServer, type ServerProcess } from './server-process.js'

const ROOT = new URL('../../', import.meta.url)

/** The ```ts blocks of docs/clients.md, each with its final newline. */
export function documentedBlocks(): string[] {
  const page = readFileSync(new URL('docs/clients.md', ROOT), 'utf8')
  return [...page.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1])
}

/** The text of examples/adapters/<name>.ts. */
export function example(name: string): string {
  return readFileSync(new URL(`examples/adapters/${name}.ts`, ROOT), 'utf8')
}

/**
 * What each adapter's suite shares, registered in the calling `describe`: the real server on a
 * free port (its URL as AGENT_TODOS_URL, which the examples read), and the check that the
 * adapter's example is the page's.
 * @param name - the adapter's example, examples/adapters/<name>.ts
 */
export function adapterHarness(name: string) {
  let server: ServerProcess
  before(async () => {
    server = await startServer()
    process.env.AGENT_TODOS_URL = server.url
  })
  after(async () => {
    await server.stop()
  })
  it('Should run the example docs/clients.md shows, byte for byte', () => {
    assert.ok(
      documentedBlocks().includes(example(name)),
      `examples/adapters/${name}.ts is in the page`
    )
  })
  return {
    url: () => server.url,
    /** The session's view from the server. */
    async session(id: string) {
      const res = await fetch(`${server.url}/v1/sessions/${id}`)
      assert.equal(res.status, 200)
      return (await res.json()) as Record<string, unknown>
    },
  }
}
