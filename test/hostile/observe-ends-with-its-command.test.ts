/**
 * `observe` ends when the command it runs exits, not when the last process holding its pipes lets
 * go: a command that leaves a background process behind (a dev server, `sleep 600 &`) used to keep
 * observe, and the session's end, open until that process exited. What the command wrote before it
 * exited is still passed through and forwarded.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startRecorder, type Recorder } from '../agents/recorder.js'
import { ingested, nodeScript, runObserve } from './observe-support.js'

const THREAD = '{"type":"thread.started","thread_id":"t-bg"}'
const DONE = '{"type":"turn.completed","usage":{}}'

/**
 * A command that starts a process holding its stdout and stderr for 20 s (`behind` runs in it),
 * prints its pid on stderr and two lines on stdout, then exits 3.
 */
const leavesBehind = (behind: string) =>
  nodeScript(`
    const { spawn } = require('node:child_process')
    const held = spawn(process.execPath, ['-e', ${JSON.stringify(`setTimeout(() => process.exit(), 20000); ${behind}`)}], {
      stdio: ['ignore', 'inherit', 'inherit'],
    })
    held.unref()
    process.stderr.write('held by ' + held.pid + '\\n')
    process.stdout.write(${JSON.stringify(`${THREAD}\n`)})
    process.stdout.write(${JSON.stringify(`${DONE}\n`)}, () => (process.exitCode = 3))
  `)

describe('hostile: observe ends with its command', () => {
  let recorder: Recorder
  const held: number[] = []
  before(async () => {
    recorder = await startRecorder()
  })
  after(async () => {
    for (const pid of held) {
      try {
        process.kill(pid)
      } catch {
        // it is gone already
      }
    }
    await recorder.close()
  })

  const cases = [
    ['a process that holds its pipes silently', ''],
    [
      'a process that keeps writing to them',
      'setInterval(() => process.stdout.write("tick\\n"), 10)',
    ],
  ] as const
  for (const [name, behind] of cases) {
    it(`Should end the session and exit with the command's code despite ${name}`, async () => {
      recorder.requests.length = 0
      const { code, out, err, ms } = await runObserve(recorder, { command: leavesBehind(behind) })
      const pid = Number(/held by (\d+)/.exec(err.text())?.[1])
      if (pid) held.push(pid)
      assert.ok(pid, err.text())
      assert.equal(code, 3)
      // the held pipes stay open for 20 s: observe waits at most its 2 s drain after the exit
      assert.ok(ms < 10_000, `observe took ${ms} ms`)
      assert.ok(out.text().startsWith(`${THREAD}\n${DONE}\n`), out.text().slice(0, 200))
      assert.deepEqual(ingested(recorder), [THREAD, DONE])
      const end = recorder.requests.at(-1)!
      assert.equal(end.path, `/v1/sessions/${encodeURIComponent('codex:t-bg')}/end`)
      assert.deepEqual(JSON.parse(end.body), { outcome: 'error', detail: 'exit code 3' })
    })
  }
})
