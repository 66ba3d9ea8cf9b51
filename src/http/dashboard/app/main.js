// @ts-check
/**
 * @module dashboard/main
 * The page's entry module: wires the controls, opens the streams and keeps the times fresh.
 */
import { renderDetail, tickDetail } from './detail.js'
import { $, dialogOf, inputOf } from './dom.js'
import { addItem, cancelEdit, saveEdit, startEdit } from './edit.js'
import { wireKeyDialog } from './key-dialog.js'
import { renderPerson, wirePeople } from './people.js'
import { ORIGIN_FILTERS, wireNotifications } from './needs.js'
import { detectRole, renderRole } from './role.js'
import { closeDetail, openDetail, selectFromHash } from './selection.js'
import { app, detail, storeKey } from './state.js'
import { markDirty, startTenantStream, tickRows } from './table.js'
import { renderWebhooks, wireWebhooks } from './webhooks.js'

/** Asks what the key may do, then shows the details' controls and the webhooks panel for it. */
async function refreshRole() {
  await detectRole()
  renderDetail()
  renderWebhooks()
}

/** Opens every stream again, with the current key. */
function restartStreams() {
  startTenantStream()
  if (detail.id) openDetail(detail.id)
  refreshRole()
}

/**
 * Uses a new key ('' for none), kept in this browser.
 * @param {string} key
 */
function useKey(key) {
  app.key = key
  storeKey(key)
  app.role = null
  renderRole()
  renderPerson()
  renderWebhooks()
  restartStreams()
}

/** The filter buttons and the search box. */
function wireFilters() {
  document.querySelectorAll('button.filter').forEach((node) => {
    const button = /** @type {HTMLButtonElement} */ (node)
    button.addEventListener('click', () => {
      app.filter = button.dataset.filter || 'all'
      document.querySelectorAll('.filter').forEach((other) => {
        other.setAttribute('aria-pressed', other === button ? 'true' : 'false')
      })
      markDirty(null)
    })
  })
  for (const [field] of ORIGIN_FILTERS) {
    const select = /** @type {HTMLSelectElement} */ ($('origin-' + field))
    select.addEventListener('change', () => {
      app.origin[field] = select.value
      markDirty(null)
    })
  }
  $('search').addEventListener('input', () => {
    app.search = inputOf('search').value.trim().toLowerCase()
    markDirty(null)
  })
}

/** A click on a row opens its session; the panel closes with its button or Escape. */
function wireDetail() {
  $('rows').addEventListener('click', (event) => {
    const target = event.target
    if (!(target instanceof Element)) return
    const row = target.closest('tr')
    if (!row || target.closest('a') || !row.dataset.sessionId) return
    location.hash = 'session=' + encodeURIComponent(row.dataset.sessionId)
  })
  window.addEventListener('hashchange', selectFromHash)
  $('detail-close').addEventListener('click', () => {
    history.pushState(null, '', location.pathname + location.search)
    closeDetail()
  })
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && detail.id && !detail.edit && !dialogOf('key-dialog').open)
      $('detail-close').click()
  })
}

/** The edit form's buttons; Enter in the add box adds the item. */
function wireEdit() {
  $('edit-button').addEventListener('click', startEdit)
  $('cancel-button').addEventListener('click', cancelEdit)
  $('add-button').addEventListener('click', addItem)
  $('add-input').addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault()
      addItem()
    }
  })
  $('edit-form').addEventListener('submit', (event) => {
    event.preventDefault()
    saveEdit()
  })
}

wireFilters()
wireDetail()
wireEdit()
wireKeyDialog(useKey)
wireNotifications()
wireWebhooks()
wirePeople(() => markDirty(null))

// who asks first, then the listing: a signed-in person's first list is "Mine", never everyone's
// for a moment (whoami is one small request)
void refreshRole().finally(startTenantStream)
selectFromHash()
setInterval(() => {
  tickRows()
  tickDetail()
}, 1000)
