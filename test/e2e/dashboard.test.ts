/**
 * End to end: the dashboard at `/` in headless Chromium (Debian's chromium driven by
 * playwright-core) against the real server process. Saves test-artifacts/dashboard.png.
 * Without chromium the suite is skipped with a reason, except under CI=true where it fails.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { BrowserContext, Page } from 'playwright-core'
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
      startServer({ AUTH_KEYS: `acme:agent:${AGENT_KEY},acme:viewer:${VIEWER_KEY}` }),
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
  })
})
