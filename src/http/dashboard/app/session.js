// @ts-check
/**
 * @module dashboard/session
 * What a session shows wherever it is shown (its row, the details): its state, its agent, its
 * badges and its progress bar.
 */
import { el } from './dom.js'
import { STALE_AFTER_MS } from './format.js'
import { AGENTS } from './agents.js'
import { OUTCOME_LABEL } from './labels.js'

/** @typedef {import('./types.js').Shown} Shown */
/** @typedef {import('./types.js').Progress} Progress */

// the server computes each session's state (waiting included); the page only names it
/** @type {Record<string, string>} */
const KIND_OF_STATE = { active: 'working' }

/**
 * The session's state as the page names it (its filter, its row's look).
 * @param {Shown} s
 */
export function kindOf(s) {
  return KIND_OF_STATE[s.state] || s.state
}

/**
 * Whether an observed agent (not rounds executed here) feeds the session.
 * @param {Shown} s
 */
export function isObserved(s) {
  return !!s.source && s.source !== 'rounds'
}

/**
 * The observed agent of the session (generated from its descriptor: app/agents.js), or undefined.
 * @param {Shown} s
 */
function agentOf(s) {
  return s.source && Object.hasOwn(AGENTS, s.source) ? AGENTS[s.source] : undefined
}

/**
 * What turns the agent's todo tools on (Claude's `CLAUDE_CODE_ENABLE_TODO_TOOLS=1`), or null.
 * @param {Shown} s
 */
export function todoToolsSwitch(s) {
  return agentOf(s)?.todoToolsSwitch ?? null
}

/**
 * The observed agent's name.
 * @param {Shown} s
 */
export function agentLabel(s) {
  return agentOf(s)?.label || s.source
}

/**
 * The agent has no todo tools at all (a summary's `todo_tools`, a view's `observed.todo_tools`).
 * @param {Shown} s
 */
export function todoToolsOff(s) {
  if ('observed' in s) return !!s.observed && s.observed.todo_tools === false
  return s.todo_tools === false
}

/**
 * What "todo tools off" means for this agent.
 * @param {Shown} s
 */
export function todoToolsText(s) {
  const toggle = todoToolsSwitch(s)
  return toggle ? 'todo tools off (set ' + toggle + ')' : 'todo tools off'
}

/**
 * What the agent waits for a person for; '' when it does not.
 * @param {Shown} s
 */
export function waitingText(s) {
  if (!s.waiting) return ''
  return (
    'Waiting for a person (' +
    s.waiting.reason +
    ')' +
    (s.waiting.message ? ': ' + s.waiting.message : '')
  )
}

/**
 * The observed agent's badge; none for sessions fed by rounds.
 * @param {Shown} s
 */
export function sourceBadge(s) {
  if (!isObserved(s)) return null
  return el('span', {
    class: 'badge badge-source',
    'data-source': s.source,
    text: agentLabel(s),
    title: 'Observed: ' + agentLabel(s) + ' runs its own todo tool and reports it here',
  })
}

/**
 * Whether the run ended other than completed (max turns, error, cancelled).
 * @param {Shown} s
 */
export function badOutcome(s) {
  return !!s.ended && s.ended.outcome !== 'completed'
}

/**
 * The badge of the session's state.
 * @param {Shown} s
 * @param {string} kind
 */
function stateBadge(s, kind) {
  if (kind === 'ended') {
    return el('span', {
      class: 'badge badge-ended' + (badOutcome(s) ? ' bad' : ''),
      text: (s.ended && OUTCOME_LABEL[s.ended.outcome]) || 'Ended',
    })
  }
  if (kind === 'stale')
    return el('span', {
      class: 'badge badge-stale',
      text: 'Stale',
      title: 'No change for ' + Math.round(STALE_AFTER_MS / 1000) + ' s with unfinished items',
    })
  if (kind === 'waiting')
    return el('span', { class: 'badge badge-waiting', text: 'Waiting', title: waitingText(s) })
  if (kind === 'done') return el('span', { class: 'badge badge-done', text: 'Done' })
  if (kind === 'working')
    return el('span', { class: 'badge badge-working badge-live', text: 'Working' })
  // a state this page does not know yet is shown under the server's name
  return el('span', { class: 'badge', text: String(kind) })
}

/**
 * The state's badge and the others that apply: waiting, todo tools off, reminder due.
 * @param {Shown} s
 * @param {string} kind
 */
export function badges(s, kind) {
  const list = [stateBadge(s, kind)]
  // done, yet waiting (Claude idles at its prompt once its list is through)
  if (s.waiting && kind !== 'waiting' && kind !== 'ended')
    list.push(el('span', { class: 'badge badge-waiting', text: 'Waiting', title: waitingText(s) }))
  if (todoToolsOff(s))
    list.push(
      el('span', {
        class: 'badge badge-notools',
        text: 'Todo tools off',
        title: todoToolsText(s) + ': the agent has no todo tools, so there is no list to show',
      })
    )
  if (s.reminder_due && kind !== 'ended') {
    list.push(
      el('span', {
        class: 'badge badge-reminder',
        text: 'Reminder due',
        title: 'The model has stopped updating its list: the next round reply carries the reminder',
      })
    )
  }
  return list
}

/**
 * A progress bar with its percent and `done/total`.
 * @param {Progress} progress
 * @param {string} kind
 * @param {string} label
 */
export function progressBar(progress, kind, label) {
  const percent = progress.percent
  const fill = el('div', { class: 'bar-fill ' + kind })
  fill.style.width = percent + '%'
  return el('div', { class: 'progress' }, [
    el(
      'div',
      {
        class: 'bar',
        role: 'progressbar',
        'aria-valuemin': 0,
        'aria-valuemax': 100,
        'aria-valuenow': percent,
        'aria-label': label,
      },
      [fill]
    ),
    el('span', { class: 'progress-text' }, [
      el('span', { class: 'pct', text: percent + '%' }),
      el('span', {
        class: 'sub',
        text: progress.completed + '/' + (progress.total - progress.cancelled) + ' done',
      }),
    ]),
  ])
}

/**
 * How a subagent listed under its main session reads: its id after the main session's
 * ("agent:…").
 * @param {{ session_id: string, parent: string | null }} s
 */
export function nestedId(s) {
  const prefix = s.parent + ':'
  return s.parent && s.session_id.indexOf(prefix) === 0
    ? s.session_id.slice(prefix.length)
    : s.session_id
}
