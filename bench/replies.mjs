// What the ceiling (bench/ceiling.mjs) and the framework floor (bench/floor.mjs) answer: replies of
// the same shape and size as the service's (rendered s03 text, progress, the session view), built
// without the service's code.
import { TODO_ITEMS } from './workload.mjs'

const MARKERS = { pending: '[ ]', in_progress: '[>]', completed: '[x]' }

export function render(items) {
  if (items.length === 0) return 'No todos.'
  let done = 0
  const lines = items.map((item) => {
    if (item.status === 'completed') done++
    return `${MARKERS[item.status] ?? '[ ]'} #${item.id}: ${item.text}`
  })
  lines.push(`\n(${done}/${items.length} completed)`)
  return lines.join('\n')
}

export function progress(items) {
  const p = {
    total: items.length,
    completed: 0,
    in_progress: 0,
    pending: 0,
    cancelled: 0,
    blocked: 0,
    percent: 0,
  }
  for (const item of items) p[item.status]++
  p.percent = p.total ? Math.floor((100 * p.completed) / p.total) : 0
  return p
}

const canonical = (item) => ({
  id: item.id,
  content: item.text,
  status: item.status,
  blocks: [],
  blocked_by: [],
})

// the GET reply: the same fields as the service's session view
export const VIEW = {
  session_id: 'g0',
  dialect: 's03',
  version: 1,
  items: TODO_ITEMS.map(canonical),
  rendered: render(TODO_ITEMS),
  progress: progress(TODO_ITEMS),
  current: canonical(TODO_ITEMS[2]),
  round: 1,
  rounds_since_todo: 0,
  reminder_due: false,
  settings: {},
  ended: null,
  created_at: new Date().toISOString(),
  updated_at: new Date().toISOString(),
}

/** The reply to a round: one result per `todo` call, like the service's. */
export function roundReply(sessionId, body) {
  let items = []
  const results = []
  for (const call of body.tool_calls) {
    if (call.name !== 'todo') continue
    items = call.input.items
    results.push({
      tool_use_id: call.id,
      name: call.name,
      is_error: false,
      content: render(items),
      structured: null,
    })
  }
  return {
    session_id: sessionId,
    dialect: 's03',
    round: 1,
    version: 1,
    results,
    used_todo: results.length > 0,
    rounds_since_todo: results.length > 0 ? 0 : 1,
    reminder: null,
    notice: null,
    dropped: [],
    progress: progress(items.length ? items : TODO_ITEMS),
  }
}
