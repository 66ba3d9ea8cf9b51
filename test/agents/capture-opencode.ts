/**
 * Records what the real opencode 1.18.33 and Kilo CLI 7.7.7 emit, run offline (opencode.ts) against
 * the scripted Chat Completions stand-in, and saves it under test/fixtures/ingest/opencode/ and
 * kilo/ (REAL-CAPTURES.md says what each file holds):
 *
 * - `real-<name>.global.ndjson`: every `GET /global/event` value (`{directory, project, payload}`)
 *   from the session's creation to its last `session.idle`, as the server sent them;
 * - `real-<name>.plugin.json`: the bodies examples/observe/opencode-plugin.js posted (to a
 *   recorder), a JSON array of batches;
 * - `real-<name>.tool-results.json`: each call the stand-in made and the tool result text the CLI
 *   sent back, and `GET /session/{id}/todo` at the end (the ground truth a replay asserts);
 * - `real-run.ndjson`: the stdout of `opencode run --format json`.
 *
 * Temp paths are replaced with /home/user (HOME) and /home/user/project (the project); nothing else
 * is changed. Run: `node --import tsx test/agents/capture-opencode.ts [permission|reject|question|run|kilo]`.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { startChatCompletionsApi } from './chat-completions.js'
import {
  OPENCODE_QUESTION,
  OPENCODE_SCRIPTS,
  OPENCODE_TODOS,
  ROOT,
  opencodeCli,
  payloadOf,
  prepareHome,
  startServe,
  tapEvents,
  type OpencodeFlavor,
} from './opencode.js'
import { startRecorder, type Recorder } from './recorder.js'
import type { Script } from './scripts.js'

const FIXTURES = join(ROOT, 'test/fixtures/ingest')
const PLUGIN = join(ROOT, 'examples/observe/opencode-plugin.js')

/** The run's temp paths as a reader of the fixture sees them. */
function scrub(text: string, serve: { home: string; cwd: string; root: string }): string {
  return text
    .split(serve.cwd)
    .join('/home/user/project')
    .split(serve.home)
    .join('/home/user')
    .split(serve.root)
    .join('/home/user')
}

const is = (type: string, session: string) => (event: any) => {
  const payload = payloadOf(event)
  return payload?.type === type && payload.properties?.sessionID === session
}

interface Turn {
  /** How a person answers a wait: `once`, `reject`, or the question's answer. */
  answer?: 'once' | 'reject' | string[][]
}

/**
 * Runs one scripted prompt on a fresh server, answering its waits, and saves what it emitted.
 * @returns the session id
 */
export async function captureServe(
  name: string,
  flavor: OpencodeFlavor,
  script: Script,
  turn: Turn & { permission?: Record<string, string> }
): Promise<void> {
  const api = await startChatCompletionsApi(OPENCODE_SCRIPTS)
  const recorder: Recorder = await startRecorder()
  const t0 = Date.now()
  const serve = await startServe({
    flavor,
    api,
    permission: turn.permission,
    plugin: { file: PLUGIN, env: { AGENT_TODOS_URL: recorder.url } },
  })
  try {
    process.stdout.write(`${flavor} serve listening after ${Date.now() - t0} ms\n`)
    const tap = await tapEvents(serve)
    const session = await serve.createSession()
    await serve.prompt(session, script.prompt)
    const answered = new Set<string>()
    const answer = async () => {
      for (;;) {
        const idle = tap.events.find(is('session.idle', session))
        if (idle) return
        const asked = tap.events.find(
          (e) =>
            (is('permission.asked', session)(e) || is('question.asked', session)(e)) &&
            !answered.has(payloadOf(e).properties.id)
        )
        if (asked) {
          const { type, properties } = payloadOf(asked)
          answered.add(properties.id)
          const res =
            type === 'permission.asked'
              ? await serve.call('POST', `/permission/${properties.id}/reply`, {
                  reply: turn.answer === 'reject' ? 'reject' : 'once',
                  ...(turn.answer === 'reject' ? { message: 'Not this file.' } : {}),
                })
              : await serve.call('POST', `/question/${properties.id}/reply`, {
                  answers: Array.isArray(turn.answer) ? turn.answer : [['8080']],
                })
          if (res.status >= 300) throw new Error(`reply: ${res.status} ${JSON.stringify(res.body)}`)
        }
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    await Promise.race([
      answer(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 180_000)),
    ])
    const todo = await serve.call('GET', `/session/${session}/todo`)
    // the plugin's last batch may still be on its way
    await new Promise((resolve) => setTimeout(resolve, 1500))
    tap.close()
    const dir = join(FIXTURES, flavor)
    await mkdir(dir, { recursive: true })
    await writeFile(
      join(dir, `real-${name}.global.ndjson`),
      scrub(tap.events.map((e) => JSON.stringify(e)).join('\n') + '\n', serve)
    )
    await writeFile(
      join(dir, `real-${name}.plugin.json`),
      scrub(
        JSON.stringify(
          recorder.posts('/v1/ingest').map((r) => ({
            path: r.path,
            headers: Object.fromEntries(
              Object.entries(r.headers).filter(([k]) => k.startsWith('x-agent'))
            ),
            body: JSON.parse(r.body),
          })),
          null,
          2
        ) + '\n',
        serve
      )
    )
    await writeFile(
      join(dir, `real-${name}.tool-results.json`),
      scrub(
        JSON.stringify(
          { session, exchanges: api.exchanges(script.name), todo: todo.body },
          null,
          2
        ) + '\n',
        serve
      )
    )
    process.stdout.write(
      `${flavor} ${name}: ${tap.events.length} events, session ${session}, ${Date.now() - t0} ms\n`
    )
  } catch (error) {
    process.stderr.write(serve.output())
    throw error
  } finally {
    await serve.stop()
    await recorder.close()
    await api.close()
  }
}

/** `opencode run --format json` of the todo script (no permission asked: nothing waits). */
async function captureRun(): Promise<void> {
  const api = await startChatCompletionsApi(OPENCODE_SCRIPTS)
  const bin = opencodeCli('opencode')!
  const home = await prepareHome({ flavor: 'opencode', api })
  try {
    const child = spawn(bin, ['run', '--format', 'json', OPENCODE_TODOS.prompt], {
      cwd: home.cwd,
      env: home.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000)
    const [code] = await once(child, 'close')
    clearTimeout(timer)
    if (code !== 0) throw new Error(`opencode run: exit ${code}\n${stderr}`)
    const dir = join(FIXTURES, 'opencode')
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, 'real-run.ndjson'), scrub(stdout, home))
    await writeFile(
      join(dir, 'real-run.tool-results.json'),
      scrub(JSON.stringify({ exchanges: api.exchanges(OPENCODE_TODOS.name) }, null, 2) + '\n', home)
    )
    process.stdout.write(`opencode run: ${stdout.split('\n').length - 1} lines\n`)
  } finally {
    await rm(home.root, { recursive: true, force: true })
    await api.close()
  }
}

async function main() {
  const wanted = new Set(process.argv.slice(2))
  const all = wanted.size === 0
  if (all || wanted.has('permission'))
    await captureServe('permission', 'opencode', OPENCODE_TODOS, {
      permission: { edit: 'ask' },
      answer: 'once',
    })
  if (all || wanted.has('reject'))
    await captureServe('reject', 'opencode', OPENCODE_TODOS, {
      permission: { edit: 'ask' },
      answer: 'reject',
    })
  if (all || wanted.has('question'))
    await captureServe('question', 'opencode', OPENCODE_QUESTION, { answer: [['8080']] })
  if (all || wanted.has('kilo'))
    await captureServe('permission', 'kilo', OPENCODE_TODOS, {
      permission: { edit: 'ask' },
      answer: 'once',
    })
  if (all || wanted.has('run')) await captureRun()
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
