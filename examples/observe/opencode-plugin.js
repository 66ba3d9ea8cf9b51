// agent-todos: report opencode's (or Kilo's) todo list, status and waits to the service.
//
// Install: copy this one file into your project's `.opencode/plugin/` (Kilo: `.kilo/plugin/`),
// or into the global `~/.config/opencode/plugin/` (Kilo: `~/.config/kilo/plugin/`). No
// dependencies. Reads AGENT_TODOS_URL (default http://127.0.0.1:8080) and AGENT_TODOS_KEY from
// the environment opencode runs in; AGENT_TODOS_AGENT=kilo|opencode when the binary's name does
// not tell.
//
// Its `event` hook forwards the events the service reads (todo.updated, session.*,
// permission.*, question.*) to POST /v1/ingest/opencode, in order, a few at a time, with the
// X-Agent-User / X-Agent-Host / X-Agent-Repo / X-Agent-Branch headers. It never throws and never
// waits on the service: a service that is down costs opencode nothing (the oldest events go past
// 1000 queued).
import { execFile } from 'node:child_process'
import { hostname, userInfo } from 'node:os'

const FORWARDED = /^(todo|session|permission|question)\./
const MAX_QUEUE = 1000
const MAX_BATCH = 100

/** One line of a git command's output in `cwd`, or '' when there is none. */
function git(cwd, args) {
  return new Promise((resolve) => {
    execFile('git', ['-C', cwd, ...args], { timeout: 3000 }, (error, stdout) =>
      resolve(error ? '' : String(stdout).trim())
    )
  })
}

// who and where, as `agent-todos observe` says it: AGENT_TODOS_USER / AGENT_TODOS_HOST override
function user() {
  if (process.env.AGENT_TODOS_USER) return process.env.AGENT_TODOS_USER
  try {
    return userInfo().username
  } catch {
    return process.env.USER || ''
  }
}

/** A remote URL without its credentials (`https://user:tok@host/…` → `https://host/…`). */
const withoutUserinfo = (remote) => remote.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1')

export const AgentTodos = async ({ directory, worktree }) => {
  const base = (process.env.AGENT_TODOS_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '')
  const agent =
    process.env.AGENT_TODOS_AGENT ||
    (/kilo/i.test(process.execPath.split(/[\\/]/).pop() || '') ? 'kilo' : 'opencode')
  const url = `${base}/v1/ingest/opencode${agent === 'kilo' ? '?agent=kilo' : ''}`
  const cwd = worktree || directory || process.cwd()
  const [repo, branch] = await Promise.all([
    git(cwd, ['remote', 'get-url', 'origin']),
    git(cwd, ['rev-parse', '--abbrev-ref', 'HEAD']),
  ])
  const headers = { 'Content-Type': 'application/json' }
  if (process.env.AGENT_TODOS_KEY) headers.Authorization = `Bearer ${process.env.AGENT_TODOS_KEY}`
  const origin = {
    'X-Agent-User': user(),
    'X-Agent-Host': process.env.AGENT_TODOS_HOST || hostname(),
    'X-Agent-Repo': withoutUserinfo(repo),
  }
  if (branch && branch !== 'HEAD') origin['X-Agent-Branch'] = branch
  for (const [name, value] of Object.entries(origin)) if (value) headers[name] = value

  const queue = []
  let sending = false
  async function drain() {
    if (sending) return
    sending = true
    try {
      for (let attempt = 0; queue.length && attempt < 5;) {
        const batch = queue.slice(0, MAX_BATCH)
        let status = 0
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers,
            body: JSON.stringify(batch),
            signal: AbortSignal.timeout(5000),
          })
          status = res.status
          await res.arrayBuffer()
        } catch {
          status = 0
        }
        // taken, or refused for good (a retry cannot change a 4xx other than 408 / 429)
        if (
          (status >= 200 && status < 300) ||
          (status >= 400 && status < 500 && status !== 408 && status !== 429)
        ) {
          queue.splice(0, batch.length)
          attempt = 0
        } else {
          attempt++
          await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt))
        }
      }
    } finally {
      sending = false
    }
  }

  return {
    event: async ({ event }) => {
      if (!event || typeof event.type !== 'string' || !FORWARDED.test(event.type)) return
      queue.push(event)
      if (queue.length > MAX_QUEUE) queue.shift()
      // the hook returns at once; what arrives meanwhile goes in the next batch
      setTimeout(() => void drain(), 20)
    },
  }
}
