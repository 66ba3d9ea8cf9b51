// @ts-check
/**
 * @module dashboard/edit
 * Editing the open session's list: start, add an item, cancel, and save with `If-Match`,
 * answering the service's refusals (412 reloads, 422 keeps the edit, 403 turns read-only).
 */
import { api, problemText, sessionPath } from './api.js'
import { renderDetail, showMessage } from './detail.js'
import { $, inputOf, toast } from './dom.js'
import { renderEditForm } from './edit-form.js'
import { scheduleHistory } from './history.js'
import { canEdit, renderRole } from './role.js'
import { isObserved } from './session.js'
import { app, detail } from './state.js'
import { upsert } from './table.js'

/** @typedef {import('./types.js').Schemas} Schemas */
/** @typedef {import('./types.js').SessionView} SessionView */
/** @typedef {import('./types.js').Edit} Edit */
/**
 * @template T
 * @typedef {import('./types.js').ApiResult<T>} ApiResult
 */

/** Opens the edit form on the list (or on the edit not yet handed to the agent). */
export function startEdit() {
  if (!detail.view || !canEdit() || !detail.view.editable) return
  // an edit not yet handed to the agent is where the next one starts
  const pending = detail.view.observed && detail.view.observed.pending_edit
  detail.edit = {
    base: detail.view.version,
    changedTo: null,
    saving: false,
    items: (pending ? pending.items : detail.view.items).map((item) => ({
      item,
      content: item.content,
      status: item.status,
    })),
  }
  showMessage(null)
  renderDetail()
  const first = $('edit-list').querySelector('select, input')
  if (first instanceof HTMLElement) first.focus()
  else $('add-input').focus()
}

/** Drops the edit. */
export function cancelEdit() {
  detail.edit = null
  renderDetail()
  $('edit-button').focus()
}

/**
 * An id for a new item: the next number when every id is one, else `item-<n>`.
 * @param {Edit} edit
 */
function nextItemId(edit) {
  const ids = edit.items.map((row) => (row.item ? row.item.id : row.id || ''))
  if (ids.every((id) => /^\d+$/.test(id))) {
    let max = ids.reduce((m, id) => Math.max(m, Number(id)), 0)
    for (const item of detail.view ? detail.view.items : [])
      if (/^\d+$/.test(item.id)) max = Math.max(max, Number(item.id))
    return String(max + 1)
  }
  let n = ids.length + 1
  while (ids.indexOf('item-' + n) >= 0) n++
  return 'item-' + n
}

/** Adds the text in the add box as a pending item. */
export function addItem() {
  const input = inputOf('add-input')
  const text = input.value.trim()
  const edit = detail.edit
  if (!edit) return
  if (!text) {
    input.focus()
    return
  }
  edit.items.push({ item: null, id: nextItemId(edit), content: text, status: 'pending' })
  input.value = ''
  renderEditForm()
  input.focus()
}

/**
 * The list as edited, for PUT …/todos.
 * @param {Edit} edit
 * @returns {Schemas['ItemInput'][]}
 */
function editedItems(edit) {
  return edit.items.map((row) => {
    if (!row.item)
      return {
        id: row.id || '',
        content: row.content,
        status: row.status,
        blocks: [],
        blocked_by: [],
      }
    const item = Object.assign({}, row.item, { content: row.content, status: row.status })
    // a renamed item's active form would describe the old text; the dialect derives a new one
    if (row.content !== row.item.content) delete item.active_form
    return item
  })
}

/**
 * The edit was saved: show the new version and say what happens next.
 * @param {string} id
 * @param {SessionView} view
 */
function saved(id, view) {
  detail.edit = null
  detail.view = view
  upsert(view)
  renderDetail()
  scheduleHistory()
  if (isObserved(view)) {
    showMessage(
      'Sent as version ' +
        view.version +
        ': the edit is pending delivery to the agent, which gets it with the reply to its next todo tool call.',
      'info'
    )
    toast('Edit of ' + id + ' sent to the agent')
    return
  }
  showMessage(
    'Saved as version ' + view.version + '. The agent is told of the change with its next round.',
    'info'
  )
  toast('List of ' + id + ' saved')
}

/**
 * The list changed meanwhile (412): reload it and say so.
 * @param {string} id
 */
async function reloadChanged(id) {
  detail.edit = null
  /** @type {ApiResult<SessionView>} */
  const fresh = await api('GET', sessionPath(id))
  const reloaded = fresh.ok ? fresh.data : null
  if (reloaded) {
    detail.view = reloaded
    upsert(reloaded)
  }
  renderDetail()
  scheduleHistory()
  showMessage(
    'Not saved: someone changed this list while you were editing' +
      (reloaded ? ' (it is now version ' + reloaded.version + ')' : '') +
      '. The list has been reloaded; make your change again.',
    'error'
  )
}

/** Sends the edit (`PUT …/todos` with `If-Match`) and answers what the service says. */
export async function saveEdit() {
  const id = detail.id
  const edit = detail.edit
  if (!edit || edit.saving || !id) return
  edit.saving = true
  renderEditForm()
  /** @type {ApiResult<SessionView>} */
  const res = await api(
    'PUT',
    sessionPath(id, '/todos'),
    { items: editedItems(edit) },
    { 'If-Match': '"' + edit.base + '"' }
  )
  if (detail.id !== id || !detail.edit) return
  detail.edit.saving = false
  if (res.ok && res.data) return saved(id, res.data)
  if (res.status === 412) return reloadChanged(id)
  if (res.status === 422) {
    renderEditForm()
    showMessage(
      'The ' +
        (detail.view ? detail.view.dialect : 'session') +
        ' dialect refused this list: ' +
        problemText(res),
      'error'
    )
    return
  }
  if (res.status === 403) {
    detail.edit = null
    app.role = 'viewer'
    renderRole()
    renderDetail()
    showMessage('Not saved: ' + problemText(res), 'error')
    return
  }
  renderEditForm()
  showMessage(
    res.status === 401
      ? 'Not saved: the service needs a valid key.'
      : 'Not saved: ' + problemText(res),
    'error'
  )
}
