/**
 * The OpenAPI contract check of every e2e file: each response the test process receives from a
 * server it started (through `fetch`, which the request helper, the typed client and the SSE
 * readers use) is recorded, and after the file's tests each one is validated against the
 * document that server serves at `/openapi.json`. A response the document does not describe
 * fails the file. Streams are checked by status and content type; their bodies are left alone.
 */
import { after } from 'node:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { basename } from 'node:path'
import { contractOf, type Contract, type RecordedResponse } from '../contract.js'

const origins = new Set<string>()
const recorded: RecordedResponse[] = []
const reads: Promise<void>[] = []
let contract: Contract | undefined
const originalFetch = globalThis.fetch

function record(method: string, url: URL, response: Response) {
  const contentType = response.headers.get('content-type')
  const entry: RecordedResponse = {
    method,
    path: url.pathname,
    status: response.status,
    contentType,
  }
  recorded.push(entry)
  if (/event-stream/.test(contentType ?? '') || method === 'HEAD') return
  reads.push(
    response
      .clone()
      .text()
      .then(
        (text) => void (entry.body = text),
        () => undefined
      )
  )
}

globalThis.fetch = async function recordingFetch(input, init) {
  // not `new Request(input)`: that would take over a Request's body before it is sent
  const url = new URL(input instanceof Request ? input.url : String(input))
  const method = (input instanceof Request ? input.method : (init?.method ?? 'GET')).toUpperCase()
  const response = await originalFetch(input, init)
  if (origins.has(url.origin)) record(method, url, response)
  return response
}

/**
 * Starts recording a server's responses; the first server's `/openapi.json` is the contract.
 * @param base - the server's URL
 */
export async function recordContract(base: string): Promise<void> {
  origins.add(new URL(base).origin)
  if (!contract) {
    const res = await originalFetch(`${base}/openapi.json`)
    contract = contractOf((await res.json()) as Record<string, unknown>)
  }
}

after(async () => {
  if (!contract || recorded.length === 0) return
  await Promise.all(reads)
  const failures = recorded.flatMap((r) => contract!.check(r))
  const checked = recorded.filter((r) => contract!.documents(r.path)).length
  const file = basename(process.argv[1] ?? 'e2e')
  mkdirSync(new URL('../../test-artifacts/contract/', import.meta.url), { recursive: true })
  writeFileSync(
    new URL(`../../test-artifacts/contract/${file}.json`, import.meta.url),
    JSON.stringify({ checked, failures, responses: recorded }, null, 2)
  )
  if (failures.length > 0) {
    throw new Error(
      `${failures.length} of ${checked} responses break the served OpenAPI document:\n${failures.join('\n')}`
    )
  }
})
