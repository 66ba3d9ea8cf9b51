/**
 * Forwards the messages of a Claude Agent SDK `query()` to agent-todos, in order and off the
 * agent's path, and yields each one on unchanged:
 *   for await (const message of forward(query({ prompt, options }))) { … }
 * Reads AGENT_TODOS_URL (default http://127.0.0.1:8080) and AGENT_TODOS_KEY; says whose agent it
 * is and where with X-Agent-User and X-Agent-Host (the session's `cwd` comes from `system/init`).
 */
import { hostname, userInfo } from 'node:os'

/** The login name, or '' where there is none (a container without a user entry). */
function user(): string {
  try {
    return userInfo().username
  } catch {
    return ''
  }
}

export async function* forward<T>(messages: AsyncIterable<T>, send: typeof fetch = fetch) {
  const url = `${process.env.AGENT_TODOS_URL ?? 'http://127.0.0.1:8080'}/v1/ingest/claude-agent-sdk`
  const key = process.env.AGENT_TODOS_KEY
  const headers = {
    'Content-Type': 'application/json',
    'X-Agent-User': process.env.AGENT_TODOS_USER || user(),
    'X-Agent-Host': process.env.AGENT_TODOS_HOST || hostname(),
    ...(key ? { Authorization: `Bearer ${key}` } : {}),
  }
  let sent: Promise<unknown> = Promise.resolve()
  for await (const message of messages) {
    const body = JSON.stringify(message)
    sent = sent.then(() => send(url, { method: 'POST', headers, body })).catch(() => undefined)
    yield message
  }
  await sent
}
