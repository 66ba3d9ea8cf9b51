/**
 * The adapters' examples are docs/clients.md's: each examples/adapters/<name>.ts is one of the
 * page's ```ts blocks, byte for byte, so the test that runs the file runs what the page shows.
 */
import { readFileSync } from 'node:fs'

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
