/**
 * The golden texts of serde_json's errors, from the source: the real Codex CLI (the pinned dev
 * dependency) is sent one `update_plan` call per arguments text of
 * test/fixtures/native/codex-update-plan.json by the scripted model stand-in, and what it sends
 * back (its function_call_output) must be the output the file holds. The unit test
 * native-serde-json.test.ts holds the emulation (src/dialects/native/serde-json.ts) to the same
 * file. With UPDATE_GOLDEN=1 the file's outputs are rewritten from this run instead: for new cases
 * (output null) or a new Codex.
 *
 * Under CI a missing Codex CLI is a failure, never a skip.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { cliPath, ROOT, runAgent } from '../agents/agents.js'
import { startModelApi } from '../agents/model-api.js'
import type { Script } from '../agents/scripts.js'

const FIXTURE = new URL('../fixtures/native/codex-update-plan.json', import.meta.url)
const CI = process.env.CI === 'true' || process.env.CI === '1'
const UPDATE = process.env.UPDATE_GOLDEN === '1'

interface Golden {
  about: string
  codex: string | null
  cases: { what: string; arguments: string; output: string | null }[]
}

describe('serde_json error texts from the real Codex CLI', () => {
  it('Should answer every arguments text of the golden file with the output it holds', async (t) => {
    if (!cliPath('codex')) {
      if (CI) assert.fail('codex is not installed: npm ci installs the pinned dev dependency')
      t.skip('codex is not installed (npm ci)')
      return
    }
    const golden = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Golden
    const name = 'codex-serde-golden'
    const script: Script = {
      name,
      prompt: `Answer each update_plan call. (script=${name})`,
      turns: [
        ...golden.cases.map((c) => ({
          calls: [{ name: 'update_plan', input: {}, arguments: c.arguments }],
        })),
        { text: 'Done.' },
      ],
    }
    const api = await startModelApi({ [name]: script })
    try {
      const run = await runAgent({ agent: 'codex', script, api, timeoutMs: 120_000 })
      await run.cleanup()
      assert.equal(run.timedOut, false, `codex timed out:\n${run.stderr.slice(-2000)}`)
      const outputs = api.exchanges(name).map((exchange) => exchange.result ?? null)
      assert.equal(outputs.length, golden.cases.length, 'one call per case')
      const version = JSON.parse(
        readFileSync(`${ROOT}/test/agents/node_modules/@openai/codex/package.json`, 'utf8')
      ).version as string
      if (UPDATE) {
        golden.codex = version
        golden.cases.forEach((c, i) => (c.output = outputs[i]))
        writeFileSync(FIXTURE, `${JSON.stringify(golden, null, 2)}\n`)
        return
      }
      assert.equal(version, golden.codex, 'the golden file is of another Codex: UPDATE_GOLDEN=1')
      golden.cases.forEach((c, i) => assert.equal(outputs[i], c.output, c.what))
    } finally {
      await api.close()
    }
  })
})
