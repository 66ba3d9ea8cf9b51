/**
 * End to end: every ```sh block of examples/curl.md, run with bash against the real server, in
 * order; each must exit 0 and print what the ```text / ```json block after it says.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startServer, type ServerProcess } from './server-process.js'

const GUIDE = new URL('../../examples/curl.md', import.meta.url)
const GUIDE_BASE = 'http://localhost:8080'

interface Step {
  line: number
  script: string
  expected: string[] | null
}

/** The guide's ```sh blocks, each with the output block that directly follows it, if any. */
function parseGuide(markdown: string): Step[] {
  const fence = /^```([\w-]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm
  const blocks: { lang: string; body: string; start: number; end: number }[] = []
  for (let match = fence.exec(markdown); match; match = fence.exec(markdown)) {
    blocks.push({
      lang: match[1],
      body: match[2],
      start: match.index,
      end: match.index + match[0].length,
    })
  }
  const steps: Step[] = []
  blocks.forEach((block, index) => {
    if (block.lang !== 'sh') return
    const next = blocks[index + 1]
    const adjacent =
      next &&
      (next.lang === 'text' || next.lang === 'json') &&
      !markdown.slice(block.end, next.start).trim()
    steps.push({
      line: markdown.slice(0, block.start).split('\n').length,
      script: block.body,
      expected: adjacent ? next.body.split('\n').filter((line) => line.trim() !== '') : null,
    })
  })
  return steps
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Each expected line must match an output line, in order; `...` stands for anything. */
function assertOutput(actual: string, expected: string[], where: string) {
  const lines = actual.split('\n').map((line) => line.replace(/\r$/, ''))
  let from = 0
  for (const want of expected) {
    const pattern = new RegExp(`^${want.split('...').map(escapeRegExp).join('.*')}$`)
    const found = lines.findIndex((line, i) => i >= from && pattern.test(line))
    assert.ok(
      found >= 0,
      `${where}: no output line matches\n  ${want}\nafter line ${from} of:\n${actual}`
    )
    from = found + 1
  }
}

function bash(script: string, env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', script],
      { env: { ...process.env, ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        resolve({ code, stdout, stderr })
      }
    )
  })
}

describe('examples/curl.md against the real server', () => {
  let server: ServerProcess
  before(async () => {
    server = await startServer({ AUTH_KEYS: 'demo:agent:demo-key-123,other:agent:other-key-123' })
  })
  after(async () => {
    await server.stop()
  })

  it('Should find the commands and their outputs in the guide', () => {
    const steps = parseGuide(readFileSync(GUIDE, 'utf8'))
    assert.ok(steps.length >= 10, `only ${steps.length} sh blocks`)
    assert.ok(steps.filter((step) => step.expected).length >= 9)
  })

  it('Should run every command with exit 0 and the output the guide shows', async () => {
    const steps = parseGuide(readFileSync(GUIDE, 'utf8'))
    for (const step of steps) {
      const where = `examples/curl.md:${step.line}`
      const script = step.script.replaceAll(GUIDE_BASE, server.url)
      const run = await bash(script, { AGENT_TODOS_KEY: 'demo-key-123' })
      assert.equal(run.code, 0, `${where} exited ${run.code}\n${run.stdout}${run.stderr}`)
      if (step.expected) assertOutput(run.stdout, step.expected, where)
    }
  })
})
