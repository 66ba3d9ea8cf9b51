/**
 * Golden texts for src/dialects/native/serde-json.ts: each arguments text of
 * test/fixtures/native/codex-update-plan.json, parsed as the codex-plan dialect parses it, gives
 * the output the real Codex CLI gave (captured by test/e2e/codex-serde-golden.test.ts).
 */
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseUpdatePlanArguments } from '../../src/dialects/codex-plan/index.js'

const golden = JSON.parse(
  readFileSync(new URL('../fixtures/native/codex-update-plan.json', import.meta.url), 'utf8')
) as { codex: string; cases: { what: string; arguments: string; output: string }[] }

describe(`serde_json errors as Codex ${golden.codex} words them`, () => {
  for (const c of golden.cases) {
    it(`Should answer ${c.what} as Codex does`, () => {
      const parsed = parseUpdatePlanArguments(c.arguments)
      assert.equal(parsed.ok ? 'Plan updated' : parsed.message, c.output, c.arguments)
    })
  }
})
