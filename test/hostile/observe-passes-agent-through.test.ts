/**
 * `observe` passes the agent's output through as it comes and taps it second: a 16 MB line costs
 * its length (the splitting used to be quadratic: 21 s through observe against 0.3 s direct, the
 * agent's own writes blocked meanwhile), a line the service could not take (beyond the 1 MiB body
 * limit) is passed through but never sent nor kept whole, and a UTF-8 character split across
 * reads reaches the service as itself, not as `��`.
 */
import { createHash } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startRecorder, type Recorder } from '../agents/recorder.js'
import { ingested, nodeScript, runObserve } from './observe-support.js'

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex')

/** A command that prints `{"p":"aaa…"}` of `mb` MiB in one line, then a short JSON line. */
const longLine = (mb: number) =>
  nodeScript(
    `process.stdout.write('{"type":"x","p":"' + 'a'.repeat(${mb} * 1048576) + '"}\\n{"type":"thread.started","thread_id":"t-long"}\\n')`
  )

describe('hostile: observe passes the agent through first', () => {
  let recorder: Recorder
  before(async () => {
    recorder = await startRecorder()
  })
  after(() => recorder.close())

  it('Should pass a 16 MB line through in time linear in its length, and not send it', async () => {
    recorder.requests.length = 0
    const { code, out, err, ms } = await runObserve(recorder, { command: longLine(16) })
    assert.equal(code, 0)
    const expected = Buffer.from(
      '{"type":"x","p":"' +
        'a'.repeat(16 * 1048576) +
        '"}\n{"type":"thread.started","thread_id":"t-long"}\n'
    )
    assert.equal(out.bytes().length, expected.length)
    assert.equal(sha(out.bytes()), sha(expected), 'passed through unchanged')
    // quadratic splitting took 21 s here on an idle machine; linear takes well under one
    assert.ok(ms < 8000, `a 16 MB line took ${ms} ms through observe`)
    // the service would refuse it (413): not sent, said once, the next line still sent
    assert.deepEqual(ingested(recorder), ['{"type":"thread.started","thread_id":"t-long"}'])
    assert.equal(err.text().match(/longer than the service takes/g)?.length, 1)
    assert.match(err.text(), /1 stdout line\(s\) were too long and were not sent/)
  })

  it('Should send a line up to the body limit and drop the next byte beyond it', async () => {
    recorder.requests.length = 0
    // `{"type":"x","p":"…"}` of exactly 1 MiB - 1 bytes fits with its newline; one more does not
    const fits = 1048576 - 1 - '{"type":"x","p":""}'.length
    const { code, err } = await runObserve(recorder, {
      command: nodeScript(
        `const line = (n) => '{"type":"x","p":"' + 'b'.repeat(n) + '"}\\n'; process.stdout.write(line(${fits}) + line(${fits + 1}))`
      ),
    })
    assert.equal(code, 0)
    const sent = ingested(recorder)
    assert.equal(sent.length, 1)
    assert.equal(Buffer.byteLength(sent[0]) + 1, 1048576)
    assert.match(err.text(), /a stdout line of 1048576 bytes is longer than the service takes/)
  })

  it('Should send a multi-byte character split across two reads as itself', async () => {
    recorder.requests.length = 0
    // '€' is e2 82 ac: its first two bytes end one write, its last starts the next
    const { code, out } = await runObserve(recorder, {
      command: nodeScript(`
        const line = Buffer.from('{"type":"thread.started","thread_id":"t-€-ü-😀"}\\n')
        const cut = line.indexOf(0xac)
        process.stdout.write(line.subarray(0, cut), () =>
          setTimeout(() => process.stdout.write(line.subarray(cut)), 100))
      `),
    })
    assert.equal(code, 0)
    assert.equal(out.text(), '{"type":"thread.started","thread_id":"t-€-ü-😀"}\n')
    assert.deepEqual(ingested(recorder), ['{"type":"thread.started","thread_id":"t-€-ü-😀"}'])
  })
})
