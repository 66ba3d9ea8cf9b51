// @ts-check
/**
 * @module dashboard/role
 * What the key may do, as the service says (`GET /v1/whoami`), and the header's badge for it.
 */
import { api } from './api.js'
import { $, setText } from './dom.js'
import { app } from './state.js'
import { setPerson } from './people.js'

/** @typedef {import('./types.js').Role} Role */
/** @typedef {import('./types.js').Whoami} Whoami */
/**
 * @template T
 * @typedef {import('./types.js').ApiResult<T>} ApiResult
 */

/** @type {Record<Role, string>} */
const ROLE_LABEL = {
  admin: 'Admin key · can edit',
  agent: 'Agent key · can edit',
  viewer: 'Viewer key · read-only',
  open: 'Open access',
}

/** Asks the service who the key is; with no key, an agent answer means open access. */
export async function detectRole() {
  /** @type {ApiResult<Whoami>} */
  const res = await api('GET', '/v1/whoami')
  setPerson(res.ok ? res.data : null)
  if (res.ok && res.data && ['admin', 'agent', 'viewer'].indexOf(res.data.role) >= 0) {
    app.role = res.data.via === 'open' ? 'open' : res.data.role
  } else {
    app.role = null
  }
  renderRole()
}

/** Whether the key may edit lists. */
export function canEdit() {
  return app.role === 'admin' || app.role === 'agent' || app.role === 'open'
}

/** Whether the key may see and test the tenant's webhooks: an admin key, or open access. */
export function canManageWebhooks() {
  return app.role === 'admin' || app.role === 'open'
}

/** The header's badge naming the key's role. */
export function renderRole() {
  const node = $('role')
  // signed in, the role is the person's, not a key's
  const role = app.role ? ROLE_LABEL[app.role] : ''
  const label = app.person ? role.replace(' key', '') : role
  node.hidden = !label
  node.dataset.role = app.role || ''
  if (label) setText(node, label)
}
