/**
 * End to end: the dashboard at `/` in headless Chromium (Debian's chromium driven by
 * playwright-core) against the real server process. Saves test-artifacts/dashboard.png.
 * Without chromium the suite is skipped with a reason, except under CI=true where it fails.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { BrowserContext, Page } from 'playwright-core'
import { eventually } from '../eventually.js'
import { fixtureJson, fixtureLines } from '../ingest-support.js'
import { startReceiver } from '../webhook-support.js'
import { request, startServer, type ServerProcess } from './server-process.js'

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url))
const AGENT_KEY = 'agent-key-0001'
const VIEWER_KEY = 'viewer-key-0001'
const ADMIN_KEY = 'admin-key-0001'

const chromiumMissing = !existsSync(CHROMIUM)
const skip =
  chromiumMissing && process.env.CI !== 'true'
    ? `chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH); under CI=true this fails`
    : false
if (skip) console.log(`# skipping the dashboard browser test: ${skip}`)

const todoWrite = (todos: [string, string, string][]) => ({
  dialect: 'claude-todowrite',
  tool_calls: [
    {
      id: 'toolu_todo',
      name: 'TodoWrite',
      input: {
        todos: todos.map(([content, status, activeForm]) => ({ content, status, activeForm })),
      },
    },
  ],
})

const s03 = (items: [string, string][]) => ({
  tool_calls: [
    {
      id: 'toolu_todo',
      name: 'todo',
      input: { items: items.map(([text, status], i) => ({ id: String(i + 1), text, status })) },
    },
  ],
})

const bash = { tool_calls: [{ id: 'toolu_bash', name: 'bash', input: { command: 'npm test' } }] }

/** Problems the page reported: script errors and console errors (CSP violations land there). */
function watchPage(page: Page) {
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`))
  page.on('console', (message) => {
    // 4xx answers are part of the flows under test (401, 403, 412, 422, the role probe), and Chromium logs each
    if (
      message.type() === 'error' &&
      !/Failed to load resource: .* status of 4\d\d/.test(message.text())
    )
      problems.push(message.text())
  })
  return problems
}

// page callbacks run in the browser; the project's TypeScript lib has no DOM types
declare const document: any, window: any, localStorage: any, getComputedStyle: any

const rowSelector = (id: string) => `#rows tr[data-session-id="${id}"]`

/** Waits until an asynchronous condition holds (a state another process reaches), for at most `ms`. */
async function until(check: () => Promise<boolean>, ms = 30_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50))
    if (await check()) return true
  return check()
}

describe('The dashboard in headless Chromium', { skip, timeout: 60_000 }, () => {
  let context: BrowserContext
  let userDataDir: string
  let open: ServerProcess
  let keyed: ServerProcess

  before(async () => {
    if (chromiumMissing) {
      throw new Error(
        `chromium is missing at ${CHROMIUM}: under CI=true the browser test must run (apt-get install chromium)`
      )
    }
    const { chromium } = await import('playwright-core')
    userDataDir = mkdtempSync(join(tmpdir(), 'agent-todos-chromium-'))
    // in parallel: each server process takes seconds to start on a busy machine
    ;[context, open, keyed] = await Promise.all([
      chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
        viewport: { width: 1440, height: 900 },
      }),
      startServer({ STALE_AFTER_SECONDS: '1' }),
      startServer({
        AUTH_KEYS: `acme:agent:${AGENT_KEY},acme:viewer:${VIEWER_KEY},acme:admin:${ADMIN_KEY}`,
        // the webhooks panel's receivers listen on 127.0.0.1; one retry, then a failure is final
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_SCHEDULE: '1',
        WEBHOOK_TIMEOUT_MS: '2000',
      }),
    ])
  })

  after(async () => {
    await context?.close()
    await Promise.all([open?.stop(), keyed?.stop()])
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true })
  })

  describe('with open access', () => {
    let server: ServerProcess
    let page: Page
    let problems: string[]
    let pump: NodeJS.Timeout | undefined
    const api = (method: string, path: string, body?: unknown) =>
      request(server.url, method, path, body)

    before(async () => {
      server = open
      page = await context.newPage()
      problems = watchPage(page)
    })

    after(async () => {
      clearInterval(pump)
      await page?.close()
    })

    it('Should show the progress of a new round within 2 s', async () => {
      const first = await api(
        'POST',
        '/v1/sessions/build-api/rounds',
        todoWrite([
          ['Design the schema', 'in_progress', 'Designing the schema'],
          ['Write the handlers', 'pending', 'Writing the handlers'],
          ['Add tests', 'pending', 'Adding tests'],
          ['Update the docs', 'pending', 'Updating the docs'],
        ])
      )
      assert.equal(first.status, 200)
      const res = await page.goto(server.url)
      assert.equal(res?.status(), 200)
      assert.match(res?.headers()['content-security-policy'] ?? '', /script-src 'sha256-/)
      await page.waitForSelector(rowSelector('build-api'))
      assert.equal(await page.textContent(`${rowSelector('build-api')} .pct`), '0%')
      assert.equal(
        await page.textContent(`${rowSelector('build-api')} .current`),
        'Designing the schema'
      )

      const started = Date.now()
      const second = await api(
        'POST',
        '/v1/sessions/build-api/rounds',
        todoWrite([
          ['Design the schema', 'completed', 'Designing the schema'],
          ['Write the handlers', 'in_progress', 'Writing the handlers'],
          ['Add tests', 'pending', 'Adding tests'],
          ['Update the docs', 'pending', 'Updating the docs'],
        ])
      )
      assert.equal(second.body.progress.percent, 25)
      await page.waitForFunction(
        (selector) => {
          const row = document.querySelector(selector)
          return (
            row?.querySelector('.pct')?.textContent === '25%' &&
            row.querySelector('.current')?.textContent === 'Writing the handlers'
          )
        },
        rowSelector('build-api'),
        { timeout: 2000 }
      )
      assert.ok(Date.now() - started < 2000, `shown after ${Date.now() - started} ms`)
    })

    it('Should tell ended-at-max-turns and stale sessions apart from working ones', async () => {
      await api(
        'POST',
        '/v1/sessions/flaky-ci/rounds',
        s03([
          ['Reproduce the flake', 'completed'],
          ['Bisect the commit', 'in_progress'],
          ['Fix the race', 'pending'],
        ])
      )
      await api(
        'POST',
        '/v1/sessions/nightly-migration/rounds',
        s03([
          ['Dump the tables', 'completed'],
          ['Convert the rows', 'in_progress'],
          ['Verify counts', 'pending'],
        ])
      )
      const ended = await api('POST', '/v1/sessions/nightly-migration/end', {
        outcome: 'max_turns',
        detail: 'stopped after 50 turns',
      })
      assert.equal(ended.status, 200)
      await api(
        'POST',
        '/v1/sessions/release-notes/rounds',
        s03([
          ['Collect the changes', 'completed'],
          ['Write the notes', 'completed'],
        ])
      )
      // model text is shown as text, never as markup
      await api(
        'POST',
        '/v1/sessions/escaping/rounds',
        s03([['<img src=x onerror="window.__pwned=1">', 'in_progress']])
      )
      // keeps build-api and escaping changing, so they stay "working" while flaky-ci goes stale
      // (STALE_AFTER_SECONDS=1)
      pump = setInterval(() => {
        for (const id of ['build-api', 'escaping'])
          void api('POST', `/v1/sessions/${id}/rounds`, bash).catch(() => undefined)
      }, 250)

      await page.waitForSelector(`${rowSelector('flaky-ci')}[data-state="stale"]`, {
        timeout: 4000,
      })
      await page.waitForSelector(`${rowSelector('nightly-migration')}[data-state="ended"]`)
      await page.waitForSelector(`${rowSelector('release-notes')}[data-state="done"]`)
      await page.waitForSelector(`${rowSelector('build-api')}[data-state="working"]`)

      const badge = async (id: string) =>
        page.$eval(`${rowSelector(id)} .cell-state .badge`, (node) => ({
          text: node.textContent,
          className: node.className,
          color: getComputedStyle(node).backgroundColor,
        }))
      const working = await badge('build-api')
      const stale = await badge('flaky-ci')
      const maxTurns = await badge('nightly-migration')
      assert.equal(working.text, 'Working')
      assert.equal(stale.text, 'Stale')
      assert.equal(maxTurns.text, 'Ended at max turns')
      assert.equal(
        new Set([working.color, stale.color, maxTurns.color]).size,
        3,
        'three different badge colours'
      )
      assert.equal(
        await page.textContent(`${rowSelector('nightly-migration')} .current`),
        'stopped at Convert the rows'
      )
      assert.equal(await page.textContent('#count-stale'), '1')
      assert.equal(await page.textContent('#count-ended'), '1')

      assert.equal(
        await page.textContent(`${rowSelector('escaping')} .current`),
        '<img src=x onerror="window.__pwned=1">'
      )
      assert.equal(await page.evaluate(() => window.__pwned), undefined)
      assert.equal(await page.$$eval('#rows img', (nodes) => nodes.length), 0)

      // the page re-renders on its next animation frame: wait for it, then check the rows
      const visibleRows = () =>
        page.$$eval('#rows tr:not([hidden])', (rows) =>
          rows.map((row) => row.getAttribute('data-session-id'))
        )
      await page.click('button[data-filter="stale"]')
      await page
        .waitForFunction(
          () => document.querySelectorAll('#rows tr:not([hidden])').length === 1,
          undefined,
          {
            timeout: 2000,
          }
        )
        .catch(() => undefined)
      assert.deepEqual(await visibleRows(), ['flaky-ci'])
      await page.click('button[data-filter="all"]')
      await page.waitForFunction(
        () => document.querySelectorAll('#rows tr:not([hidden])').length > 1,
        undefined,
        {
          timeout: 2000,
        }
      )
    })

    it("Should show a session's list and history on click and save a screenshot", async () => {
      await page.click(`${rowSelector('build-api')} .cell-current`)
      await page.waitForSelector('#detail-body:not([hidden])')
      assert.equal(await page.textContent('#detail-title'), 'build-api')
      await page.waitForFunction(() => document.querySelectorAll('#detail-items li').length === 4)
      assert.deepEqual(
        await page.$$eval('#detail-items li', (items) => items.map((li) => li.className)),
        ['status-completed', 'status-in_progress', 'status-pending', 'status-pending']
      )
      await page.waitForFunction(
        () => document.querySelectorAll('#detail-history > li').length >= 2
      )
      const history = await page.textContent('#detail-history')
      assert.match(history ?? '', /“Design the schema”: in progress → completed/)
      assert.match(history ?? '', /“Write the handlers”: pending → in progress/)
      // the pump's rounds without a todo call make the reminder due
      await page.waitForSelector(`${rowSelector('build-api')} .badge-reminder`, { timeout: 3000 })
      // with open access the list is editable
      assert.equal(await page.isVisible('#edit-button'), true)
      assert.equal(await page.textContent('#role'), 'Open access')

      mkdirSync(ARTIFACTS, { recursive: true })
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard.png'), fullPage: true })
      clearInterval(pump)
      assert.deepEqual(problems, [])
    })

    it('Should show open access the webhooks panel, with none yet', async () => {
      await page.waitForSelector('#webhooks:not([hidden])')
      await page.click('#webhooks-panel > summary')
      await page.waitForFunction(() =>
        /^No webhooks\./.test(document.querySelector('#webhooks-status')?.textContent ?? '')
      )
      assert.equal(await page.textContent('#count-webhooks'), '0')
      assert.equal(await page.$$eval('#webhooks-list li', (items) => items.length), 0)
      assert.deepEqual(problems, [])
    })
  })

  describe('observed agents (fed through the ingest routes)', () => {
    let server: ServerProcess
    let page: Page
    let problems: string[]
    const api = (method: string, path: string, body?: unknown) =>
      request(server.url, method, path, body)
    const hooks = async (source: string, inputs: unknown[]) => {
      for (const input of inputs) {
        const res = await api('POST', `/v1/ingest/${source}`, input)
        assert.equal(res.status, 200, res.text)
      }
    }
    const stream = async (source: string, lines: string[]) => {
      const res = await request(
        server.url,
        'POST',
        `/v1/ingest/${source}`,
        lines.join('\n') + '\n',
        { 'content-type': 'application/x-ndjson' }
      )
      assert.equal(res.status, 200, res.text)
    }
    // the fixtures' sessions (test/fixtures/ingest/)
    const MAIN = 'claude:beb21700-11bb-4a47-9146-1f02fab85f4a'
    const SUBAGENT = `${MAIN}:agent:a3ad0f60fd2fb066f`
    const WAITING = 'claude:5d2e7f10-8a3b-4c6d-9e1f-2a3b4c5d6e7f'
    const NO_TOOLS = 'claude:f4d5e6f7-0819-4a3b-b4c5-d6e7f8091a2b'
    const CODEX = 'codex:0199a213-81c0-7800-8aa1-bbab2a035a53'
    const waitingHooks = fixtureJson('claude-code/waiting.hooks.json')

    before(async () => {
      server = open
      // the main session plans and starts a subagent, which writes its own list (the run goes on)
      await hooks('claude-code', fixtureJson('claude-code/subagent.hooks.json').slice(0, 4))
      // a plan, then Claude waits at its prompt
      await hooks('claude-code', waitingHooks)
      // a headless run without todo tools (no result yet: still running)
      await stream(
        'claude-agent-sdk',
        fixtureLines('claude-agent-sdk/no-todo-tools.ndjson').slice(0, -1)
      )
      // codex exec --json, the turn not over
      await stream('codex', fixtureLines('codex/exec.jsonl').slice(0, -1))
      page = await context.newPage()
      problems = watchPage(page)
    })

    after(async () => {
      await page?.close()
    })

    it('Should badge each agent, nest a subagent under its main session and keep a waiting session apart from stale', async () => {
      await page.goto(server.url)
      for (const id of [MAIN, SUBAGENT, WAITING, NO_TOOLS, CODEX, 'build-api'])
        await page.waitForSelector(rowSelector(id))
      const source = (id: string) =>
        page.$eval(
          rowSelector(id),
          (row) => row.querySelector('.badge-source')?.textContent ?? null
        )
      assert.equal(await source(MAIN), 'Claude Code')
      assert.equal(await source(WAITING), 'Claude Code')
      assert.equal(await source(NO_TOOLS), 'Claude Agent SDK')
      assert.equal(await source(CODEX), 'Codex')
      assert.equal(await source('build-api'), null, 'sessions fed by rounds have no agent badge')

      // the subagent's row comes right after its main session's, indented, named by its own part
      const order = () =>
        page.$$eval('#rows tr', (rows) => rows.map((row) => row.getAttribute('data-session-id')))
      const ids = await order()
      assert.equal(ids[ids.indexOf(MAIN) + 1], SUBAGENT)
      const sub = await page.$eval(rowSelector(SUBAGENT), (row) => ({
        className: row.className,
        parent: row.getAttribute('data-parent'),
        text: row.querySelector('.sid')?.textContent,
        indent: parseFloat(getComputedStyle(row.querySelector('td')).paddingLeft),
        mainIndent: parseFloat(
          getComputedStyle(
            document.querySelector(
              `#rows tr[data-session-id="${row.getAttribute('data-parent')}"] td`
            )
          ).paddingLeft
        ),
      }))
      assert.match(sub.className, /\bsubagent\b/)
      assert.equal(sub.parent, MAIN)
      assert.equal(sub.text, 'agent:a3ad0f60fd2fb066f')
      assert.ok(sub.indent > sub.mainIndent, `indented: ${sub.indent} px > ${sub.mainIndent} px`)

      // STALE_AFTER_SECONDS=1: the main session goes stale, the waiting one stays waiting
      await page.waitForSelector(`${rowSelector(MAIN)}[data-state="stale"]`, { timeout: 5000 })
      assert.equal(await page.getAttribute(rowSelector(WAITING), 'data-state'), 'waiting')
      const waiting = await page.$eval(`${rowSelector(WAITING)} .cell-state .badge`, (node) => ({
        text: node.textContent,
        title: node.getAttribute('title'),
        color: getComputedStyle(node).backgroundColor,
      }))
      const stale = await page.$eval(`${rowSelector(MAIN)} .cell-state .badge`, (node) => ({
        text: node.textContent,
        color: getComputedStyle(node).backgroundColor,
      }))
      assert.equal(waiting.text, 'Waiting')
      assert.equal(stale.text, 'Stale')
      assert.notEqual(waiting.color, stale.color)
      assert.match(waiting.title ?? '', /idle_prompt.*Claude is waiting for your input/)
      assert.equal(
        await page.textContent(`${rowSelector(WAITING)} .waiting-text`),
        'Waiting for a person (idle_prompt): Claude is waiting for your input'
      )
      assert.equal(await page.textContent('#count-waiting'), '1')
      await page.click('button[data-filter="waiting"]')
      await page.waitForFunction(
        () => document.querySelectorAll('#rows tr:not([hidden])').length === 1
      )
      assert.deepEqual(
        await page.$$eval('#rows tr:not([hidden])', (rows) =>
          rows.map((row) => row.getAttribute('data-session-id'))
        ),
        [WAITING]
      )
      await page.click('button[data-filter="all"]')

      // an agent without todo tools says so, and how to turn them on
      assert.equal(
        await page.textContent(`${rowSelector(NO_TOOLS)} .current`),
        'todo tools off (set CLAUDE_CODE_ENABLE_TODO_TOOLS=1)'
      )
      assert.equal(
        await page.textContent(`${rowSelector(NO_TOOLS)} .badge-notools`),
        'Todo tools off'
      )
      await page.click(`${rowSelector(NO_TOOLS)} .sid`)
      await page.waitForSelector('#detail-notools:not([hidden])')
      assert.match(
        (await page.textContent('#detail-notools')) ?? '',
        /^todo tools off \(set CLAUDE_CODE_ENABLE_TODO_TOOLS=1\)/
      )

      // the main session's details link its subagent
      await page.click(`${rowSelector(MAIN)} .sid`)
      await page.waitForFunction(
        (id) => document.querySelector('#detail-title')?.textContent === id,
        MAIN
      )
      await page.waitForSelector('#detail-meta .subagents a')
      assert.equal(
        await page.getAttribute('#detail-meta .subagents a', 'href'),
        `#session=${encodeURIComponent(SUBAGENT)}`
      )
    })

    it('Should offer no edit of a Codex list (the agent owns it)', async () => {
      await page.click(`${rowSelector(CODEX)} .sid`)
      await page.waitForFunction(
        (id) => document.querySelector('#detail-title')?.textContent === id,
        CODEX
      )
      await page.waitForFunction(() => document.querySelectorAll('#detail-items li').length === 3)
      await page.waitForSelector('#edit-owned:not([hidden])')
      assert.equal(await page.isVisible('#edit-button'), false)
      assert.equal(await page.isVisible('#edit-form'), false)
      assert.match((await page.textContent('#edit-owned')) ?? '', /Codex owns this list/)
      assert.equal(await page.textContent('#role'), 'Open access', 'the key could edit')
      // as the service would refuse it
      const put = await api('PUT', `/v1/sessions/${CODEX}/todos`, { items: [] })
      assert.equal(put.status, 409)
      assert.match(put.body.type, /agent-owns-list/)
    })

    it("Should send an edit of a Claude list to the agent and show it pending until Claude's next todo call", async () => {
      await page.click(`${rowSelector(WAITING)} .sid`)
      await page.waitForFunction(
        (id) => document.querySelector('#detail-title')?.textContent === id,
        WAITING
      )
      await page.waitForSelector('#detail-waiting:not([hidden])')
      assert.match(
        (await page.textContent('#detail-waiting')) ?? '',
        /^Waiting for a person\s*since .+ · idle_prompt: Claude is waiting for your input$/
      )
      await page.waitForSelector('#edit-button:not([hidden])')
      assert.equal(await page.isVisible('#edit-owned'), false)
      await page.click('#edit-button')
      assert.equal(await page.isVisible('#edit-observed'), true)
      await page.selectOption('#edit-list .edit-row[data-item-id="1"] select', 'completed')
      await page.selectOption('#edit-list .edit-row[data-item-id="2"] select', 'in_progress')
      await page.click('#save-button')
      await page.waitForSelector('#detail-pending:not([hidden])')
      assert.match(
        (await page.textContent('#detail-pending')) ?? '',
        /^Edit pending delivery to the agent/
      )
      assert.match((await page.textContent('#detail-message')) ?? '', /^Sent as version \d+/)
      // the list is the agent's until it writes it
      assert.equal(
        await page.getAttribute('#detail-items li[data-item-id="1"]', 'class'),
        'status-in_progress'
      )

      mkdirSync(ARTIFACTS, { recursive: true })
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-observed.png'), fullPage: true })

      // Claude's next todo call: the hook reply hands the edit to the model, once
      const next = waitingHooks[0]
      const reply = await api('POST', '/v1/ingest/claude-code', {
        ...next,
        tool_use_id: 'toolu_01Wait2',
      })
      assert.equal(reply.status, 200)
      assert.equal(reply.body.hookSpecificOutput?.hookEventName, 'PostToolUse')
      await page.waitForSelector('#detail-pending', { state: 'hidden' })
      assert.deepEqual(problems, [])
    })

    it('Should list a subagent at the top level when its main session is not listed', async () => {
      const deleted = await api('DELETE', `/v1/sessions/${MAIN}`)
      assert.equal(deleted.status, 204)
      await page.waitForSelector(rowSelector(MAIN), { state: 'detached' })
      await page.waitForFunction((id) => {
        const row = document.querySelector(`#rows tr[data-session-id="${id}"]`)
        return row && !row.classList.contains('subagent')
      }, SUBAGENT)
      assert.equal(await page.textContent(`${rowSelector(SUBAGENT)} .sid`), SUBAGENT)
      assert.deepEqual(problems, [])
    })

    it('Should fit a 390 px phone screen: no horizontal overflow, each card with its id, state and progress in view', async () => {
      const phone = await context.newPage()
      const phoneProblems = watchPage(phone)
      try {
        await phone.setViewportSize({ width: 390, height: 844 })
        await phone.goto(server.url)
        await phone.waitForSelector(rowSelector(SUBAGENT))
        const fits = async (what: string) => {
          const { scrollWidth, innerWidth } = await phone.evaluate(() => ({
            scrollWidth: document.documentElement.scrollWidth,
            innerWidth: window.innerWidth,
          }))
          assert.ok(scrollWidth <= innerWidth, `${what}: ${scrollWidth} px wide in ${innerWidth}`)
        }
        await fits('the list')
        // neither the screen nor the cell (overflow: hidden) cuts the id, the state or the percentage
        const clipped = await phone.$$eval('#rows tr', (rows) =>
          rows.flatMap((row: any) =>
            ['.sid', '.cell-state .badge', '.pct'].flatMap((selector) => {
              const part = row.querySelector(selector)
              if (!part) return [`${row.dataset.sessionId}: no ${selector}`]
              const box = part.getBoundingClientRect()
              const cell = part.closest('td').getBoundingClientRect()
              const inside =
                box.width > 0 &&
                box.left >= cell.left - 0.5 &&
                box.right <= cell.right + 0.5 &&
                box.right <= window.innerWidth
              return inside ? [] : [`${row.dataset.sessionId}: ${selector} cut`]
            })
          )
        )
        assert.deepEqual(clipped, [])
        // the needs-you view, then a session's detail pane across the whole width
        await phone.click('.filter[data-filter="waiting"]')
        await fits('the waiting view')
        await phone.click('.filter[data-filter="all"]')
        await phone.click(`${rowSelector(CODEX)} .cell-current`)
        await phone.waitForSelector('#detail-body:not([hidden])')
        await fits('the detail pane')
        const pane = await phone.$eval('#detail', (detail: any) => {
          const box = detail.getBoundingClientRect()
          return { left: box.left, right: box.right, innerWidth: window.innerWidth }
        })
        assert.ok(pane.left >= 0 && pane.right <= pane.innerWidth, JSON.stringify(pane))
        assert.ok(pane.right - pane.left >= pane.innerWidth - 40, JSON.stringify(pane))
        mkdirSync(ARTIFACTS, { recursive: true })
        await phone.screenshot({ path: join(ARTIFACTS, 'dashboard-phone.png'), fullPage: true })
        assert.deepEqual(phoneProblems, [])
      } finally {
        await phone.close()
      }
    })
  })

  describe('with AUTH_KEYS (an agent and a viewer key)', () => {
    let server: ServerProcess
    let page: Page
    let problems: string[]
    const agent = { Authorization: `Bearer ${AGENT_KEY}` }
    const api = (method: string, path: string, body?: unknown) =>
      request(server.url, method, path, body, agent)

    before(async () => {
      server = keyed
      await api(
        'POST',
        '/v1/sessions/ops-1/rounds',
        s03([
          ['Check the logs', 'in_progress'],
          ['Restart the worker', 'pending'],
          ['Write the report', 'pending'],
        ])
      )
      page = await context.newPage()
      problems = watchPage(page)
    })

    after(async () => {
      await page?.close()
    })

    const useKey = async (key: string) => {
      if (!(await page.$eval('#key-dialog', (node) => (node as { open: boolean }).open)))
        await page.click('#key-button')
      await page.fill('#key-input', key)
      await page.click('#key-form button[type="submit"]')
    }

    it('Should ask for a key, read with a viewer key and hide the editing controls', async () => {
      await page.goto(server.url)
      await page.waitForSelector('#key-dialog[open]')
      assert.equal(await page.textContent('#conn-text'), 'Key needed')
      await useKey(VIEWER_KEY)
      await page.waitForSelector(rowSelector('ops-1'))
      await page.waitForFunction(
        () => document.querySelector('#role')?.textContent === 'Viewer key · read-only'
      )
      assert.equal(await page.evaluate(() => localStorage.getItem('agent-todos.key')), VIEWER_KEY)
      await page.click(`${rowSelector('ops-1')} .sid`)
      await page.waitForFunction(() => document.querySelectorAll('#detail-items li').length === 3)
      assert.equal(await page.isVisible('#edit-button'), false)
      assert.equal(await page.isVisible('#edit-readonly'), true)
      // and a write with this key is refused by the service
      const status = await page.evaluate(async (key) => {
        const res = await fetch('/v1/sessions/ops-1/todos', {
          method: 'PUT',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ items: [] }),
        })
        return res.status
      }, VIEWER_KEY)
      assert.equal(status, 403)
    })

    it("Should show the dialect's message on 422 and reload on 412", async () => {
      await useKey(AGENT_KEY)
      await page.waitForFunction(
        () => document.querySelector('#role')?.textContent === 'Agent key · can edit'
      )
      await page.waitForSelector('#edit-button:not([hidden])')

      await page.click('#edit-button')
      await page.selectOption('#edit-list .edit-row[data-item-id="2"] select', 'in_progress')
      await page.click('#save-button')
      await page.waitForSelector('#detail-message.error:not([hidden])')
      assert.match(
        (await page.textContent('#detail-message')) ?? '',
        /Only one task can be in_progress at a time/
      )
      assert.equal(await page.isVisible('#edit-form'), true, 'still editing after a 422')
      await page.click('#cancel-button')

      await page.click('#edit-button')
      await page.fill('#edit-list .edit-row[data-item-id="3"] input', 'Write the incident report')
      const moved = await api('POST', '/v1/sessions/ops-1/rounds', bash)
      assert.equal(moved.status, 200)
      await page.waitForSelector('#edit-note:not([hidden])')
      await page.click('#save-button')
      await page.waitForFunction(() =>
        /someone changed this list/.test(
          document.querySelector('#detail-message')?.textContent ?? ''
        )
      )
      assert.equal(await page.isVisible('#edit-form'), false)
      const reloaded = (await page.textContent('#detail-items li[data-item-id="3"] .text')) ?? ''
      assert.match(reloaded, /Write the report/)
      assert.doesNotMatch(reloaded, /incident/)
      const after = await api('GET', '/v1/sessions/ops-1')
      assert.equal(after.body.items[2].content, 'Write the report')
    })

    it('Should edit the list with an agent key, and the next round reply carries the notice exactly once', async () => {
      mkdirSync(ARTIFACTS, { recursive: true })
      await page.click('#edit-button')
      await page.selectOption('#edit-list .edit-row[data-item-id="1"] select', 'completed')
      await page.selectOption('#edit-list .edit-row[data-item-id="2"] select', 'in_progress')
      await page.fill('#edit-list .edit-row[data-item-id="2"] input', 'Restart the queue worker')
      await page.click('#edit-list .edit-row[data-item-id="3"] button')
      await page.fill('#add-input', 'Page the on-call engineer')
      await page.click('#add-button')
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-edit.png') })
      await page.click('#save-button')
      await page.waitForFunction(() =>
        /^Saved as version \d+/.test(document.querySelector('#detail-message')?.textContent ?? '')
      )

      const view = await api('GET', '/v1/sessions/ops-1')
      assert.deepEqual(
        view.body.items.map((item: { id: string; content: string; status: string }) => [
          item.id,
          item.content,
          item.status,
        ]),
        [
          ['1', 'Check the logs', 'completed'],
          ['2', 'Restart the queue worker', 'in_progress'],
          ['4', 'Page the on-call engineer', 'pending'],
        ]
      )
      await page.waitForFunction(() => document.querySelectorAll('#detail-items li').length === 3)

      const first = await api('POST', '/v1/sessions/ops-1/rounds', bash)
      assert.equal(first.status, 200)
      assert.ok(first.body.notice, 'the first round after the edit carries a notice')
      assert.match(first.body.notice.rendered, /Restart the queue worker/)
      const second = await api('POST', '/v1/sessions/ops-1/rounds', bash)
      assert.equal(second.body.notice, null)
      assert.deepEqual(problems, [])
    })

    describe('the webhooks panel', () => {
      const admin = { Authorization: `Bearer ${ADMIN_KEY}` }
      const adminApi = (method: string, path: string, body?: unknown) =>
        request(server.url, method, path, body, admin)
      let ok: Awaited<ReturnType<typeof startReceiver>>
      let failing: Awaited<ReturnType<typeof startReceiver>>
      let onCall: { id: string; secret: string }
      let everything: { id: string; secret: string }
      const card = (id: string) => `#webhooks-list li.webhook[data-webhook-id="${id}"]`
      /** The deliveries a card shows, newest first. */
      const shownDeliveries = (id: string) =>
        page.$$eval(`${card(id)} li.delivery`, (items) =>
          items.map((li) => ({
            status: li.getAttribute('data-status'),
            type: li.querySelector('.delivery-type')?.textContent,
            session: li.querySelector('.delivery-session')?.getAttribute('href') ?? null,
            facts: li.querySelector('.delivery-facts')?.textContent,
            error: li.querySelector('.delivery-error')?.textContent ?? null,
          }))
        )
      /** A webhook's deliveries as the API lists them. */
      const deliveries = async (id: string) =>
        (await adminApi('GET', `/v1/webhooks/${id}/deliveries`)).body.deliveries as {
          id: string
          type: string
          status: string
        }[]

      before(async () => {
        ;[ok, failing] = await Promise.all([startReceiver(() => 200), startReceiver(() => 500)])
        const created = await adminApi('POST', '/v1/webhooks', {
          url: ok.url,
          events: ['session.waiting', 'session.ended'],
          format: 'standard',
          delay_seconds: 60,
          filter: { repo: 'acme/api', labels: { team: 'infra' } },
          description: 'On-call channel',
        })
        assert.equal(created.status, 201, created.text)
        onCall = created.body
        const all = await adminApi('POST', '/v1/webhooks', {
          url: failing.url,
          events: ['*'],
          format: 'slack',
        })
        assert.equal(all.status, 201, all.text)
        everything = all.body
        assert.equal((await adminApi('POST', `/v1/webhooks/${onCall.id}/test`)).status, 202)
        // a session that ends: a session.ended for the webhook of every event (the other one's
        // filter wants acme/api), which its receiver refuses twice
        assert.equal(
          (await api('POST', '/v1/sessions/hooked-1/rounds', s03([['Deploy', 'in_progress']])))
            .status,
          200
        )
        assert.equal(
          (await api('POST', '/v1/sessions/hooked-1/end', { outcome: 'error', detail: 'boom' }))
            .status,
          200
        )
        assert.ok(
          await until(async () => {
            const [a, b] = await Promise.all([deliveries(onCall.id), deliveries(everything.id)])
            return a[0]?.status === 'delivered' && b[0]?.status === 'failed'
          }),
          'the test is delivered and the session.ended has failed'
        )
      })

      after(async () => {
        await Promise.all([ok?.close(), failing?.close()])
      })

      it("Should show an admin key the tenant's webhooks and each one's recent deliveries, never a secret", async () => {
        await useKey(ADMIN_KEY)
        await page.waitForFunction(
          () => document.querySelector('#role')?.textContent === 'Admin key · can edit'
        )
        await page.waitForSelector('#webhooks:not([hidden])')
        // an admin key edits lists too
        await page.waitForSelector('#edit-button:not([hidden])')
        await page.click('#webhooks-panel > summary')
        await page.waitForFunction(
          () => document.querySelectorAll('#webhooks-list li.webhook').length === 2
        )
        assert.equal(await page.textContent('#count-webhooks'), '2')

        const field = (id: string, name: string) =>
          page.textContent(`${card(id)} dd[data-field="${name}"]`)
        assert.equal(await page.textContent(`${card(onCall.id)} .webhook-url`), ok.url)
        assert.equal(
          await page.textContent(`${card(onCall.id)} .webhook-description`),
          'On-call channel'
        )
        assert.equal(await field(onCall.id, 'events'), 'session.waiting, session.ended')
        assert.equal(await field(onCall.id, 'format'), 'standard')
        assert.equal(await field(onCall.id, 'delay'), '60 s before session.waiting')
        assert.equal(await field(onCall.id, 'filter'), 'repo=acme/api · label team=infra')
        assert.deepEqual(await shownDeliveries(onCall.id), [
          {
            status: 'delivered',
            type: 'webhook.test',
            session: null,
            facts: '1 attempt · HTTP 200',
            error: null,
          },
        ])

        assert.equal(await page.textContent(`${card(everything.id)} .webhook-url`), failing.url)
        assert.equal(await field(everything.id, 'events'), '*')
        assert.equal(await field(everything.id, 'format'), 'slack')
        assert.equal(await field(everything.id, 'delay'), 'none')
        assert.equal(await field(everything.id, 'filter'), 'every session')
        assert.equal(await page.$(`${card(everything.id)} .webhook-description`), null)
        assert.deepEqual(await shownDeliveries(everything.id), [
          {
            status: 'failed',
            type: 'session.ended',
            session: '#session=hooked-1',
            facts: '2 attempts · HTTP 500',
            error: 'HTTP 500',
          },
        ])
        // the session link opens the session
        await page.click(`${card(everything.id)} .delivery-session`)
        await page.waitForFunction(
          () => document.querySelector('#detail-title')?.textContent === 'hooked-1'
        )
        // no secret is on the page, nor in what the page was sent
        const html = await page.content()
        for (const secret of [onCall.secret, everything.secret])
          assert.ok(!html.includes(secret), 'a secret is on the page')
        assert.doesNotMatch(html, /whsec_/)
        assert.deepEqual(problems, [])
      })

      it('Should send a test from its button and show its outcome on Refresh', async () => {
        const before = failing.received.length
        await page.click(`${card(everything.id)} button.webhook-test`)
        // the panel loads again after the test is queued: the test is the newest delivery
        await page.waitForFunction(
          (selector) =>
            document.querySelector(selector)?.querySelector('.delivery-type')?.textContent ===
            'webhook.test',
          `${card(everything.id)} li.delivery`
        )
        // on its way (its attempts under way or one retry due), or failed already
        const [sent] = await shownDeliveries(everything.id)
        if (sent.status === 'pending')
          assert.match(
            sent.facts ?? '',
            /^\d attempts? · (HTTP 500 · )?next attempt (now|in \d s)$/
          )
        else assert.equal(sent.status, 'failed')
        assert.ok(
          await until(async () => (await deliveries(everything.id))[0]?.status === 'failed'),
          'the test delivery fails at its receiver'
        )
        assert.ok(failing.received.length >= before + 2, 'the test was sent and retried once')
        await page.click('#webhooks-refresh')
        await page.waitForFunction(
          (selector) => document.querySelector(selector)?.getAttribute('data-status') === 'failed',
          `${card(everything.id)} li.delivery`
        )
        assert.deepEqual(
          (await shownDeliveries(everything.id)).map((d) => [d.type, d.status, d.facts]),
          [
            ['webhook.test', 'failed', '2 attempts · HTTP 500'],
            ['session.ended', 'failed', '2 attempts · HTTP 500'],
          ]
        )
        assert.deepEqual(problems, [])
      })

      it('Should fit the webhooks panel on a 390 px phone screen', async () => {
        const phone = await context.newPage()
        const phoneProblems = watchPage(phone)
        try {
          await phone.setViewportSize({ width: 390, height: 844 })
          // the admin key is kept in this browser
          await phone.goto(server.url)
          await phone.waitForSelector('#webhooks:not([hidden])')
          await phone.click('#webhooks-panel > summary')
          await phone.waitForFunction(
            () => document.querySelectorAll('#webhooks-list li.delivery').length === 3
          )
          const layout = await phone.evaluate(() => ({
            scrollWidth: document.documentElement.scrollWidth,
            innerWidth: window.innerWidth,
            right: Math.max(
              ...Array.from(
                document.querySelectorAll('#webhooks-list li.webhook, #webhooks-list button')
              ).map((node: any) => node.getBoundingClientRect().right)
            ),
          }))
          assert.ok(layout.scrollWidth <= layout.innerWidth, JSON.stringify(layout))
          assert.ok(layout.right <= layout.innerWidth, JSON.stringify(layout))
          mkdirSync(ARTIFACTS, { recursive: true })
          await phone.screenshot({
            path: join(ARTIFACTS, 'dashboard-webhooks-phone.png'),
            fullPage: true,
          })
          assert.deepEqual(phoneProblems, [])
        } finally {
          await phone.close()
        }
      })

      it('Should show agent and viewer keys no webhooks panel, and send no webhook request for them', async () => {
        /** the page's requests for webhooks, by path */
        const asked: string[] = []
        page.on('request', (req) => {
          const { pathname } = new URL(req.url())
          if (pathname.startsWith('/v1/webhooks')) asked.push(pathname)
        })
        for (const [key, role] of [
          [AGENT_KEY, 'Agent key · can edit'],
          [VIEWER_KEY, 'Viewer key · read-only'],
        ]) {
          await useKey(key)
          await page.waitForFunction(
            (text) => document.querySelector('#role')?.textContent === text,
            role
          )
          assert.equal(await page.isVisible('#webhooks'), false, role)
          // and a fresh page with this key
          await page.reload()
          await page.waitForFunction(
            (text) => document.querySelector('#role')?.textContent === text,
            role
          )
          await page.waitForSelector(rowSelector('hooked-1'))
          assert.equal(await page.isVisible('#webhooks'), false, role)
          assert.equal(
            await page.$$eval('#webhooks-list li', (items) => items.length),
            0,
            `${role}: nothing left of the admin's panel`
          )
        }
        assert.deepEqual(asked, [])
        assert.deepEqual(problems, [])
      })
    })
  })

  describe("the page's scripts", () => {
    it('Should load each module the page names, by its hash, and run no other script, inline or from the service', async () => {
      const page = await context.newPage()
      const problems = watchPage(page)
      /** the status of each module response, by path */
      const served = new Map<string, number>()
      page.on('response', (res) => {
        const { pathname } = new URL(res.url())
        if (pathname.startsWith('/dashboard/')) served.set(pathname, res.status())
      })
      try {
        const res = await page.goto(open.url)
        const html = (await res?.text()) ?? ''
        const modules = [...new Set(html.match(/\/dashboard\/[0-9a-f]+\/[\w-]+\.js/g))]
        assert.ok(modules.length > 0, 'the page names its modules')
        assert.doesNotMatch(
          res?.headers()['content-security-policy'] ?? '',
          /unsafe-|script-src[^;]*'self'/
        )
        await page.waitForFunction(
          () => document.querySelector('#conn')?.getAttribute('data-conn') === 'live'
        )
        for (const path of modules) assert.equal(served.get(path), 200, path)
        assert.deepEqual(problems, [])

        const entry = modules.find((path) => path.endsWith('/main.js'))
        const ran = await page.evaluate(async (url) => {
          const inline = document.createElement('script')
          inline.textContent = 'window.__inlineRan = true'
          document.body.append(inline)
          let unlisted = 'ran'
          // the service serves it, but the page gives it no integrity the CSP would admit
          await import(`${url}?unlisted`).catch(() => (unlisted = 'refused'))
          return { inline: window.__inlineRan ?? false, unlisted }
        }, entry)
        assert.deepEqual(ran, { inline: false, unlisted: 'refused' })
        assert.ok(
          problems.some((problem) => /Content Security Policy/.test(problem)),
          problems.join('\n')
        )
      } finally {
        await page.close()
      }
    })
  })

  describe('what needs a person, across users and hosts', () => {
    let server: ServerProcess
    let page: Page
    let problems: string[]
    const who = (user: string, host: string, repo?: string, branch?: string) => ({
      'X-Agent-User': user,
      'X-Agent-Host': host,
      ...(repo ? { 'X-Agent-Repo': repo } : {}),
      ...(branch ? { 'X-Agent-Branch': branch } : {}),
    })
    const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
      request(server.url, method, path, body, headers)
    const claudeHooks = fixtureJson('claude-code/waiting.hooks.json')
    const W1 = 'claude:0e0e0e0e-1111-4222-8333-444455556666'
    const W2 = 'claude:0e0e0e0e-7777-4888-8999-aaaabbbbcccc'
    const W3 = 'claude:0e0e0e0e-dddd-4eee-8fff-000011112222'
    const hook = (id: string, i: number) => ({
      ...claudeHooks[i],
      session_id: id.slice('claude:'.length),
    })
    const ids = (selector: string) =>
      page.$$eval(selector, (nodes) => nodes.map((node) => node.getAttribute('data-session-id')))

    before(async () => {
      server = await startServer({ STALE_AFTER_SECONDS: '1' })
      // W1 waits first (the longest wait), W2 after it
      const ada = who('ada', 'laptop-1', 'https://ada:tok@github.com/acme/api.git', 'feat/a')
      const grace = who('grace', 'laptop-1', 'acme/web', 'main')
      for (const [id, headers] of [
        [W1, ada],
        [W2, grace],
      ] as const) {
        assert.equal(
          (await api('POST', '/v1/ingest/claude-code', hook(id, 0), headers)).status,
          200
        )
        assert.equal(
          (await api('POST', '/v1/ingest/claude-code', hook(id, 1), headers)).status,
          200
        )
        const at = Date.parse((await api('GET', `/v1/sessions/${id}`)).body.waiting.at)
        // a later wait begins later: the clock moves on before the next one
        assert.ok(await eventually(() => Date.now() > at))
      }
      // stale: unfinished and unchanged (STALE_AFTER_SECONDS=1); stale-1 quiet the longest
      const linus = who('linus', 'build-2')
      for (const id of ['stale-1', 'stale-2']) {
        const res = await api(
          'POST',
          `/v1/sessions/${id}/rounds`,
          s03([['Deploy', 'in_progress']]),
          linus
        )
        assert.equal(res.status, 200)
        const at = Date.parse((await api('GET', `/v1/sessions/${id}`)).body.updated_at)
        assert.ok(await eventually(() => Date.now() > at))
      }
      // ended with work left, and a done session that needs nobody
      const graceCi = who('grace', 'build-2', 'acme/web', 'release')
      await api(
        'POST',
        '/v1/sessions/ended-1/rounds',
        s03([
          ['Migrate', 'pending'],
          ['Ship', 'pending'],
        ]),
        graceCi
      )
      assert.equal(
        (await api('POST', '/v1/sessions/ended-1/end', { outcome: 'error', detail: 'crashed' }))
          .status,
        200
      )
      await api('POST', '/v1/sessions/done-1/rounds', s03([['Lint', 'completed']]), linus)
      page = await context.newPage()
      problems = watchPage(page)
      // a browser notification is recorded, not shown (headless Chromium shows none)
      // (a string: a function's text would carry the test's compiled helpers into the page)
      await page.addInitScript({
        content: `
          window.__notes = []
          function RecordedNotification(title, options) {
            window.__notes.push({ title: title, body: options.body })
          }
          RecordedNotification.permission = 'granted'
          RecordedNotification.requestPermission = function () { return Promise.resolve('granted') }
          window.Notification = RecordedNotification
        `,
      })
    })

    after(async () => {
      await page?.close()
      await server?.stop()
    })

    it('Should open on what needs a person: waiting (longest first, with its reason), then stale, then ended with work left, each with its origin', async () => {
      await page.goto(server.url)
      await page.waitForFunction(
        () => document.querySelectorAll('#needs-list li').length === 5,
        undefined,
        { timeout: 10_000 }
      )
      assert.deepEqual(await ids('#needs-list li'), [W1, W2, 'stale-1', 'stale-2', 'ended-1'])
      assert.deepEqual(
        await page.$$eval('#needs-list li', (nodes) =>
          nodes.map((n) => n.getAttribute('data-need'))
        ),
        ['waiting', 'waiting', 'stale', 'stale', 'ended']
      )
      assert.equal(await page.textContent('#count-needs'), '5')
      const first = await page.$eval('#needs-list li', (li) => ({
        reason: li.querySelector('.need-reason')?.textContent ?? '',
        origin: li.querySelector('.origin')?.textContent ?? '',
      }))
      assert.match(
        first.reason,
        /^Waiting since .* · permission_prompt: Claude needs your permission to use Bash$/
      )
      assert.equal(first.origin, 'ada@laptop-1 · https://github.com/acme/api.git (feat/a)')
      assert.match(
        (await page.textContent('#needs-list li[data-session-id="ended-1"] .need-reason')) ?? '',
        /with 2 items left$/
      )
      // the needs view comes before the table
      const [needsTop, tableTop] = await page.evaluate(() => [
        document.querySelector('#needs').getBoundingClientRect().top,
        document.querySelector('.sessions').getBoundingClientRect().top,
      ])
      assert.ok(needsTop < tableTop)
      // the table shows the origin under each session
      assert.equal(await page.textContent(`${rowSelector('stale-1')} .origin`), 'linus@build-2')
      assert.equal(
        await page.textContent(`${rowSelector('ended-1')} .origin`),
        'grace@build-2 · acme/web (release)'
      )
      assert.deepEqual(problems, [])
    })

    it('Should filter the needs view and the table by user, host, repo and agent', async () => {
      await page.selectOption('#origin-user', 'grace')
      await page.waitForFunction(() => document.querySelectorAll('#needs-list li').length === 2)
      assert.deepEqual(await ids('#needs-list li'), [W2, 'ended-1'])
      assert.deepEqual((await ids('#rows tr:not([hidden])')).sort(), [W2, 'ended-1'].sort())
      await page.selectOption('#origin-host', 'build-2')
      await page.waitForFunction(() => document.querySelectorAll('#needs-list li').length === 1)
      assert.deepEqual(await ids('#needs-list li'), ['ended-1'])
      await page.selectOption('#origin-user', '')
      await page.waitForFunction(() => document.querySelectorAll('#needs-list li').length === 3)
      assert.deepEqual(await ids('#needs-list li'), ['stale-1', 'stale-2', 'ended-1'])
      await page.selectOption('#origin-host', '')
      await page.selectOption('#origin-repo', 'acme/web')
      await page.waitForFunction(() => document.querySelectorAll('#needs-list li').length === 2)
      assert.deepEqual(await ids('#needs-list li'), [W2, 'ended-1'])
      await page.selectOption('#origin-repo', '')
      await page.selectOption('#origin-agent', 'claude-code')
      await page.waitForFunction(() => document.querySelectorAll('#needs-list li').length === 2)
      assert.deepEqual(await ids('#needs-list li'), [W1, W2])
      await page.selectOption('#origin-agent', '')
      await page.waitForFunction(() => document.querySelectorAll('#needs-list li').length === 5)
    })

    it('Should notify, once opted in, when a session starts waiting (not for the ones already waiting)', async () => {
      await page.click('#notify-button')
      await page.waitForFunction(
        () => document.querySelector('#notify-button')?.getAttribute('aria-pressed') === 'true'
      )
      assert.deepEqual(await page.evaluate(() => (window as any).__notes), [])
      const linus = who('linus', 'build-2', 'acme/ops', 'main')
      assert.equal((await api('POST', '/v1/ingest/claude-code', hook(W3, 0), linus)).status, 200)
      assert.equal((await api('POST', '/v1/ingest/claude-code', hook(W3, 1), linus)).status, 200)
      await page.waitForFunction(() => (window as any).__notes.length === 1)
      const [note] = await page.evaluate(() => (window as any).__notes)
      assert.equal(note.title, 'Claude Code waits for you')
      assert.equal(
        note.body,
        `${W3}\nlinus@build-2 · acme/ops (main)\npermission_prompt: Claude needs your permission to use Bash`
      )
      // the newest wait goes after the older ones
      await page.waitForFunction(() => document.querySelectorAll('#needs-list li').length === 6)
      assert.deepEqual((await ids('#needs-list li')).slice(0, 3), [W1, W2, W3])
    })

    it('Should show the needs view at phone width without horizontal overflow', async () => {
      const phone = await context.newPage()
      const phoneProblems = watchPage(phone)
      try {
        await phone.setViewportSize({ width: 390, height: 844 })
        await phone.goto(server.url)
        await phone.waitForFunction(() => document.querySelectorAll('#needs-list li').length === 6)
        const layout = await phone.evaluate(() => {
          const card = document.querySelector('#needs-list li').getBoundingClientRect()
          return {
            scrollWidth: document.documentElement.scrollWidth,
            innerWidth: window.innerWidth,
            cardRight: card.right,
            cardTop: card.top,
          }
        })
        assert.ok(layout.scrollWidth <= layout.innerWidth, JSON.stringify(layout))
        assert.ok(layout.cardRight <= layout.innerWidth, JSON.stringify(layout))
        assert.ok(layout.cardTop < 844, 'the first card is in view when the page opens')
        mkdirSync(ARTIFACTS, { recursive: true })
        await phone.screenshot({
          path: join(ARTIFACTS, 'dashboard-needs-phone.png'),
          fullPage: true,
        })
        assert.deepEqual(phoneProblems, [])
      } finally {
        await phone.close()
      }
    })
  })
})
