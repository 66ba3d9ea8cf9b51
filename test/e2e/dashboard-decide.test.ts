/**
 * End to end: answering a waiting agent from the dashboard's needs-you card (docs/decisions.md),
 * in headless Chromium against the real server. A person who may answer (here an admin) sees the
 * request's options and denies with a reason, which reaches the held hook verbatim; a viewer sees
 * the card without them. Without chromium the suite is skipped with a reason, except under CI.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { BrowserContext, Page } from 'playwright-core'
import { fixtureJson } from '../ingest-support.js'
import { request, startServer, type ServerProcess } from './server-process.js'

declare const localStorage: any

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const chromiumMissing = !existsSync(CHROMIUM)
const skip =
  chromiumMissing && process.env.CI !== 'true' ? `chromium is missing at ${CHROMIUM}` : false
const ADMIN_KEY = 'admin-key-decide-1'
const VIEWER_KEY = 'viewer-key-decide-1'
const hook = fixtureJson('claude-code/real-permission-request.json')

describe('Answering from the dashboard', { skip, timeout: 90_000 }, () => {
  let context: BrowserContext
  let userDataDir: string
  let server: ServerProcess

  before(async () => {
    if (chromiumMissing) throw new Error(`chromium is missing at ${CHROMIUM}`)
    const { chromium } = await import('playwright-core')
    userDataDir = mkdtempSync(join(tmpdir(), 'agent-todos-decide-'))
    ;[context, server] = await Promise.all([
      chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
      }),
      startServer({ AUTH_KEYS: `acme:admin:${ADMIN_KEY},acme:viewer:${VIEWER_KEY}` }),
    ])
  })

  after(async () => {
    await context?.close()
    await server?.stop()
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true })
  })

  /** A page with the key, and the page's first answer of `GET …/decisions`. */
  const pageWithKey = async (key: string) => {
    const page: Page = await context.newPage()
    await page.addInitScript((k) => localStorage.setItem('agent-todos.key', k), key)
    const asked = page.waitForResponse((res) => res.url().endsWith('/decisions'))
    await page.goto(server.url)
    return { page, asked }
  }
  const held = (session: string) =>
    request(server.url, 'POST', `/v1/ingest/claude-code?decide=1&session_id=${session}`, hook, {
      Authorization: `Bearer ${ADMIN_KEY}`,
    })

  it('Should show the options to an admin and hand a deny with its reason to the agent', async () => {
    const reply = held('claude:dash-1')
    const { page } = await pageWithKey(ADMIN_KEY)
    const card = 'li.need[data-session-id="claude:dash-1"]'
    await page.waitForSelector(`${card} .need-decide button[data-option-id="deny"]`)
    assert.ok(await page.isVisible(`${card} button[data-option-id="allow_once"]`))
    await page.fill(`${card} .decide-reason`, 'Not on the release branch')
    await page.click(`${card} button[data-option-id="deny"]`)
    const answered = await reply
    assert.deepEqual(answered.body.hookSpecificOutput.decision, {
      behavior: 'deny',
      message: 'Not on the release branch',
    })
    const state = await request(
      server.url,
      'GET',
      '/v1/sessions/claude:dash-1/decisions',
      undefined,
      { Authorization: `Bearer ${ADMIN_KEY}` }
    )
    assert.equal(state.body.last_decision.outcome, 'denied')
    assert.equal(state.body.last_decision.channel, 'dashboard')
    await page.close()
  })

  it('Should show a viewer the card without options', async () => {
    const reply = held('claude:dash-2')
    const { page, asked } = await pageWithKey(VIEWER_KEY)
    const card = 'li.need[data-session-id="claude:dash-2"]'
    await page.waitForSelector(`${card} .need-decide`, { state: 'attached' })
    // the server's answer for this caller has come (the page asked GET …/decisions)
    assert.equal((await (await asked).json()).can_answer, false)
    assert.equal(await page.$$eval(`${card} .need-decide button`, (nodes) => nodes.length), 0)
    await request(
      server.url,
      'POST',
      '/v1/sessions/claude:dash-2/decisions',
      {
        request_id: (await page.getAttribute(`${card} .need-decide`, 'data-request-id'))!,
        decision: 'allow',
      },
      { Authorization: `Bearer ${ADMIN_KEY}` }
    )
    assert.equal((await reply).body.hookSpecificOutput.decision.behavior, 'allow')
    await page.close()
  })
})
