// @ts-check
/**
 * People on the dashboard (docs/people.md): who is signed in, sign-out, "Mine" (the person's
 * sessions, what needs them on top) and "Everyone", "New token" (shown once, with the lines to
 * paste), and "Sign in" where the service offers it and no key is set.
 */
import { api, problemText } from './api.js'
import { $, dialogOf, inputOf, setText, toast } from './dom.js'
import { app } from './state.js'

/** Whether the service offers sign-in (the page says so). */
export const signInOffered = () => document.body.dataset.signIn === 'on'

/**
 * Takes what `GET /v1/whoami` said: a signed-in person, or none.
 * @param {{ user?: string | null, via?: string, csrf_token?: string } | null} who
 */
export function setPerson(who) {
  const signedIn = !!who && who.via === 'oidc' && !!who.user
  const was = app.person && app.person.user
  app.person = signedIn && who ? { user: String(who.user), csrf: who.csrf_token || '' } : null
  // signed in, the page opens on "Mine"
  if (app.person && app.person.user !== was) app.view = 'mine'
  if (!app.person) app.view = 'everyone'
  renderPerson()
}

/** Whether a session is the signed-in person's (everything is, in "Everyone"). */
export function inView(/** @type {{ origin?: { user?: string | null } }} */ s) {
  if (app.view !== 'mine' || !app.person) return true
  return !!s.origin && s.origin.user === app.person.user
}

/** The header and the view buttons as the person and the view are. */
export function renderPerson() {
  const person = app.person
  $('person').hidden = !person
  if (person) setText($('person-user'), person.user)
  $('signout-button').hidden = !person
  $('token-button').hidden = !person && !app.key
  $('views').hidden = !person
  $('signin-link').hidden = !!person || !!app.key || !signInOffered()
  document.querySelectorAll('button.view').forEach((node) => {
    const button = /** @type {HTMLButtonElement} */ (node)
    button.setAttribute('aria-pressed', button.dataset.view === app.view ? 'true' : 'false')
  })
}

/** What a person pastes to send with their token: the hook forwarder, observe, ACP, OTLP. */
function snippets(/** @type {string} */ token) {
  const url = location.origin
  return [
    '# forward-hook.sh (Claude Code, Codex, Gemini… hooks)',
    `export AGENT_TODOS_URL=${url}`,
    `export AGENT_TODOS_KEY=${token}`,
    '',
    '# agent-todos observe / the ACP tap',
    `AGENT_TODOS_URL=${url} AGENT_TODOS_KEY=${token} agent-todos observe -- claude`,
    `AGENT_TODOS_URL=${url} AGENT_TODOS_KEY=${token} agent-todos acp -- <your ACP agent>`,
    '',
    "# an agent's OpenTelemetry exporter",
    `OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer ${token}`,
  ].join('\n')
}

/** The "New token" dialog: create, then show the token once. */
function wireTokenDialog() {
  const dialog = dialogOf('token-dialog')
  $('token-button').addEventListener('click', () => {
    $('token-made').hidden = true
    $('token-error').hidden = true
    $('token-create').hidden = false
    setText($('token-value'), '')
    dialog.showModal()
  })
  $('token-close').addEventListener('click', () => {
    // the secret leaves the page with the dialog
    setText($('token-value'), '')
    setText($('token-snippets'), '')
    dialog.close()
  })
  $('token-form').addEventListener('submit', async (event) => {
    event.preventDefault()
    const days = Number(inputOf('token-days').value)
    const role = /** @type {HTMLSelectElement} */ ($('token-role')).value
    const res = await api('POST', '/v1/tokens', {
      name: inputOf('token-name').value.trim() || 'token',
      role,
      ...(days > 0 ? { expires_days: days } : {}),
    })
    if (res.status !== 201 || !res.data) {
      setText($('token-error'), problemText(res))
      $('token-error').hidden = false
      return
    }
    const token = /** @type {{ token: string }} */ (res.data).token
    setText($('token-value'), token)
    setText($('token-snippets'), snippets(token))
    $('token-made').hidden = false
    $('token-create').hidden = true
  })
}

/**
 * Wires sign-out, the views and the token dialog.
 * @param {() => void} changed - the listing shows another set of sessions
 */
export function wirePeople(changed) {
  $('signout-button').addEventListener('click', async () => {
    await fetch('/auth/logout', { method: 'POST', cache: 'no-store' })
    toast('Signed out')
    location.reload()
  })
  document.querySelectorAll('button.view').forEach((node) => {
    const button = /** @type {HTMLButtonElement} */ (node)
    button.addEventListener('click', () => {
      app.view = button.dataset.view === 'mine' ? 'mine' : 'everyone'
      renderPerson()
      changed()
    })
  })
  wireTokenDialog()
  renderPerson()
}
