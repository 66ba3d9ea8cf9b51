/**
 * What the hostile `agent-todos observe` tests share: a writable that keeps what it got, and a run
 * of the real `observe` against a recorder (test/agents/recorder.ts) in place of the service.
 */
import { Writable } from 'node:stream'
import { observe, type ObserveOptions } from '../../src/cli/observe.js'

/** A writable that keeps what it got and when. */
export function sink() {
  const chunks: { at: number; data: Buffer }[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push({ at: Date.now(), data: Buffer.from(chunk) })
      done()
    },
  })
  return {
    stream,
    chunks,
    bytes: () => Buffer.concat(chunks.map((c) => c.data)),
    text: () => Buffer.concat(chunks.map((c) => c.data)).toString('utf8'),
  }
}

/** A command running `node -e <script>`. */
export const nodeScript = (script: string) => [process.execPath, '-e', script]

/**
 * Runs `observe` (codex by default) to its end against `service` (a recorder), with fast retries.
 * @returns the exit code, our stdout and stderr, and how long the run took
 */
export async function runObserve(service: { url: string }, options: Partial<ObserveOptions>) {
  const out = sink()
  const err = sink()
  const started = Date.now()
  const code = await observe({
    url: service.url,
    key: 'observe-hostile-key',
    agent: 'codex',
    command: nodeScript(''),
    out: out.stream,
    err: err.stream,
    flushTimeoutMs: 5000,
    ...options,
    tuning: { lingerMs: 5, retryBaseMs: 20, retryMaxMs: 100, signalGraceMs: 50, ...options.tuning },
  })
  return { code, out, err, ms: Date.now() - started }
}

/** The NDJSON lines the recorder got on ingest routes, in arrival order. */
export const ingested = (recorder: { posts(prefix: string): { body: string }[] }) =>
  recorder.posts('/v1/ingest/').flatMap((r) => r.body.split('\n').filter(Boolean))
