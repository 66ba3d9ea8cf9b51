// @ts-check
/**
 * @module dashboard/edit-form
 * The open session's list as an editable form: a status, a text and a remove button per item.
 */
import { $, el, setText } from './dom.js'
import { STATUSES, STATUS_LABEL } from './labels.js'
import { isObserved } from './session.js'
import { detail } from './state.js'

/** @typedef {import('./types.js').Item} Item */
/** @typedef {import('./types.js').Edit} Edit */
/** @typedef {import('./types.js').EditRow} EditRow */

/**
 * One item's row of the form.
 * @param {Edit} editing
 * @param {EditRow} row
 * @param {number} index
 */
function editRow(editing, row, index) {
  const n = index + 1
  const select = el('select', {
    'aria-label': 'Status of item ' + n,
    'data-index': index,
    class: 'edit-status',
  })
  for (const status of STATUSES) {
    const option = el('option', { value: status, text: STATUS_LABEL[status] })
    if (status === row.status) option.selected = true
    select.append(option)
  }
  select.addEventListener('change', () => {
    row.status = /** @type {Item['status']} */ (select.value)
  })
  const input = el('input', {
    type: 'text',
    'aria-label': 'Text of item ' + n,
    class: 'edit-text',
    maxlength: 10000,
  })
  input.value = row.content
  input.addEventListener('input', () => {
    row.content = input.value
  })
  const removeButton = el('button', {
    type: 'button',
    class: 'btn small danger',
    'aria-label': 'Remove item ' + n,
    title: 'Remove',
    text: 'Remove',
  })
  removeButton.addEventListener('click', () => {
    editing.items.splice(index, 1)
    renderEditForm()
  })
  return el('div', { class: 'edit-row', 'data-item-id': row.item ? row.item.id : row.id }, [
    select,
    input,
    removeButton,
  ])
}

/** The form, shown while an edit is under way, with a note when the list changed meanwhile. */
export function renderEditForm() {
  const form = $('edit-form')
  const editing = detail.edit
  form.hidden = !editing
  if (!editing) return
  $('edit-observed').hidden = !detail.view || !isObserved(detail.view)
  const note = $('edit-note')
  note.hidden = editing.changedTo === null
  if (editing.changedTo !== null) {
    setText(
      note,
      'The list changed on the server (now version ' +
        editing.changedTo +
        ') since you started editing version ' +
        editing.base +
        '; saving will be refused.'
    )
  }
  $('edit-list').replaceChildren(...editing.items.map((row, index) => editRow(editing, row, index)))
  const saveButton = /** @type {HTMLButtonElement} */ ($('save-button'))
  saveButton.disabled = editing.saving
}
