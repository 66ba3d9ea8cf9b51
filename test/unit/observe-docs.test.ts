/**
 * docs/observe.md and its agent pages (docs/observe-<agent>.md) show the files the end-to-end
 * tests run: every code block under a link to a file of the repository is that file, byte for byte.
 */
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'

const root = new URL('../../', import.meta.url)
/** The overview, then each agent's page in the overview's order. */
const PAGES = [
  'observe.md',
  'observe-claude-code.md',
  'observe-claude-agent-sdk.md',
  'observe-codex.md',
  'observe-gemini-cli.md',
  'observe-openhands.md',
  'observe-qwen-code.md',
  'observe-opencode.md',
  'observe-copilot.md',
  'observe-acp.md',
]
const doc = PAGES.map((page) => readFileSync(new URL(`docs/${page}`, root), 'utf8')).join('\n')

describe('docs/observe.md', () => {
  it('Should show every snippet file exactly as the repository holds it', () => {
    const shown = [
      ...doc.matchAll(
        /\[[^\]]*\]\(\.\.\/(examples\/observe\/[^)]+)\)(?:(?!```)[\s\S])*```\w*\n([\s\S]*?)\n```/g
      ),
    ]
    const paths = shown.map((match) => match[1])
    assert.deepEqual(paths, [
      'examples/observe/forward-hook.sh',
      'examples/observe/claude-code/settings.json',
      'examples/observe/claude-agent-sdk/forward.ts',
      'examples/observe/claude-agent-sdk/main.ts',
      'examples/observe/claude-agent-sdk/forward.py',
      'examples/observe/claude-agent-sdk/main.py',
      'examples/observe/codex/config.toml',
      'examples/observe/codex/hooks.json',
      'examples/observe/gemini-cli/settings.json',
      'examples/observe/openhands/agent-server-config.json',
      'examples/observe/qwen-code/settings.json',
      'examples/observe/opencode-plugin.js',
      'examples/observe/copilot/agent-todos.json',
    ])
    for (const [, path, block] of shown) {
      assert.equal(block, readFileSync(new URL(path, root), 'utf8').replace(/\n$/, ''), path)
    }
  })

  it('Should link every agent page from the overview', () => {
    for (const page of PAGES.slice(1))
      assert.match(doc, new RegExp(`\\]\\(${page.replace('.', '\\.')}\\)`))
  })

  it('Should be linked from the README', () => {
    const readme = readFileSync(new URL('README.md', root), 'utf8')
    assert.match(readme, /\[docs\/observe\.md\]\(docs\/observe\.md\)/)
  })
})
