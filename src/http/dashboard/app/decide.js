// @ts-check
/**
 * @module dashboard/decide
 * Answering an agent from its needs-you card (docs/decisions.md): when the session's wait holds
 * a request (`waiting.request`) and the server says this caller may answer it
 * (`GET …/decisions` → `can_answer`: the session's own person or an admin), the card shows the
 * request's options (allow once, deny with a reason, a question's choices); then the outcome, or
 * "answered at the terminal" when the agent's own prompt won. Anyone else sees nothing more.
 */
import { api, sessionPath } from './api.js'
import { el } from './dom.js'

/** @typedef {import('./types.js').Shown} Shown */
/** @typedef {import('./types.js').Schemas['DecisionRequest']} DecisionRequest */
/** @typedef {import('./types.js').Schemas['DecisionState']} DecisionState */
/** @typedef {import('./types.js').Schemas['DecisionOption']} DecisionOption */

/** What the server said of each request (whether this caller may answer), by request id. */
/** @type {Map<string, Promise<DecisionState | null>>} */
const states = new Map()

/**
 * Each request's box, kept across renders (the cards are rebuilt on every change; the box, with
 * a reason being typed, moves to the new card), by request id; the last few only.
 * @type {Map<string, HTMLElement>}
 */
const boxes = new Map()
const MAX_BOXES = 64

/** The outcome shown once a request was answered here, by request id. */
/** @type {Map<string, string>} */
const outcomes = new Map()

/** What an outcome reads as on the card. */
const OUTCOME_TEXT = /** @type {Record<string, string>} */ ({
  allowed: 'Allowed',
  denied: 'Denied',
  answered: 'Answered',
  answered_elsewhere: 'Answered at the terminal',
  expired: 'Expired: the agent asks at its own prompt',
})

/**
 * The decision state of a session's request, asked once per request.
 * @param {string} sessionId
 * @param {string} requestId
 */
function stateOf(sessionId, requestId) {
  let state = states.get(requestId)
  if (!state) {
    state = api('GET', sessionPath(sessionId, '/decisions')).then((res) =>
      res.ok ? /** @type {DecisionState} */ (res.data) : null
    )
    states.set(requestId, state)
  }
  return state
}

/**
 * Sends an answer, and shows its outcome (or why it was refused) on the card.
 * @param {HTMLElement} box
 * @param {string} sessionId
 * @param {DecisionRequest} request
 * @param {Record<string, unknown>} answer
 */
async function send(box, sessionId, request, answer) {
  for (const button of box.querySelectorAll('button')) button.setAttribute('disabled', '')
  const res = await api(
    'POST',
    sessionPath(sessionId, '/decisions'),
    Object.assign({ request_id: request.id }, answer),
    { 'X-Agent-Todos-Client': 'dashboard' }
  )
  let text
  if (res.ok && res.data) text = (OUTCOME_TEXT[res.data.outcome] || res.data.outcome) + ' by you'
  else if (res.status === 409) text = await settledText(sessionId)
  else if (res.status === 410) text = OUTCOME_TEXT.expired
  else text = 'Not sent (' + (res.data && res.data.title ? res.data.title : res.status) + ')'
  outcomes.set(request.id, text)
  box.replaceChildren(el('div', { class: 'decide-outcome', text }))
}

/**
 * How a request that was answered already was answered.
 * @param {string} sessionId
 */
async function settledText(sessionId) {
  const res = await api('GET', sessionPath(sessionId, '/decisions'))
  const last = res.ok && res.data ? res.data.last_decision : null
  if (!last) return 'Answered already'
  const by = last.by && last.outcome !== 'answered_elsewhere' ? ' by ' + last.by : ''
  return (OUTCOME_TEXT[last.outcome] || last.outcome) + by
}

/**
 * The buttons of a request's options: allow, a deny with its reason, a question's choices.
 * @param {HTMLElement} box
 * @param {string} sessionId
 * @param {DecisionRequest} request
 */
function optionButtons(box, sessionId, request) {
  const reason = /** @type {HTMLInputElement} */ (
    el('input', {
      class: 'decide-reason',
      type: 'text',
      maxlength: '2000',
      placeholder: 'Reason (told to the agent)',
      'aria-label': 'Reason for denying',
    })
  )
  /** @param {DecisionOption} option */
  const button = (option) => {
    const node = el('button', {
      type: 'button',
      class: 'decide-' + option.kind,
      'data-option-id': option.id,
      text: option.label,
    })
    node.addEventListener('click', () => {
      const message = option.kind === 'deny' && reason.value.trim() ? reason.value.trim() : null
      void send(
        box,
        sessionId,
        request,
        Object.assign({ option_id: option.id }, message ? { message } : {})
      )
    })
    return node
  }
  const denies = request.options.some((option) => option.kind === 'deny')
  const options = el('div', { class: 'decide-options' }, request.options.map(button))
  return denies ? [options, reason] : [options]
}

/**
 * The decision part of a needs-you card: empty, then filled once the server says this caller may
 * answer the session's pending request; the outcome once answered here.
 * @param {Shown} s
 * @returns {HTMLElement | null}
 */
export function decisionControls(s) {
  const request = s.waiting && s.waiting.request
  if (!request) return null
  const kept = boxes.get(request.id)
  if (kept) return kept
  const box = /** @type {HTMLElement} */ (
    el('div', { class: 'need-decide', 'data-request-id': request.id })
  )
  boxes.set(request.id, box)
  if (boxes.size > MAX_BOXES) boxes.delete(boxes.keys().next().value ?? '')
  const done = outcomes.get(request.id)
  if (done) {
    box.replaceChildren(el('div', { class: 'decide-outcome', text: done }))
    return box
  }
  void stateOf(s.session_id, request.id).then((state) => {
    if (!state || !state.can_answer || !state.request || state.request.id !== request.id) return
    const what = request.tool ? 'Asks to use ' + request.tool : 'Asks'
    box.replaceChildren(
      el('div', { class: 'decide-what', text: what }),
      ...optionButtons(box, s.session_id, request)
    )
  })
  return box
}
