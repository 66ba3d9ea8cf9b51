// @ts-check
/**
 * @module dashboard/selection
 * Which session is open (`#session=<id>`): opening one follows its own event stream, closing it
 * stops that.
 */
import { sessionPath } from './api.js'
import { renderDetail, showMessage } from './detail.js'
import { $ } from './dom.js'
import { quote } from './format.js'
import { scheduleHistory } from './history.js'
import { openStream } from './sse.js'
import { app, detail } from './state.js'
import { markDirty, upsert } from './table.js'

/**
 * Marks the open session's row (and unmarks the one before).
 * @param {string | null} id
 */
function markSelected(id) {
  const previous = app.selected
  app.selected = id
  if (previous) markDirty(previous)
  if (id) markDirty(id)
}

/**
 * Opens a session in the details panel, or follows it again (a new key).
 * @param {string} id
 */
export function openDetail(id) {
  if (detail.stream) detail.stream.close()
  clearTimeout(detail.historyTimer)
  const same = detail.id === id
  detail.id = id
  if (!same) {
    detail.view = null
    detail.history = []
    detail.edit = null
    showMessage(null)
  }
  detail.gone = null
  markSelected(id)
  $('detail').hidden = false
  renderDetail()
  detail.stream = openStream(sessionPath(id, '/events'), {
    resumeFrom: () => (detail.view ? detail.view.version : null),
    onStatus: () => {},
    onFail: (status) => {
      if (status === 404) {
        detail.gone = 'No session ' + quote(id) + ' in this tenant.'
        renderDetail()
        return false
      }
    },
    onEvent: (event, data) => {
      if (event === 'delete') {
        detail.gone = 'This session was deleted.'
        if (detail.stream) detail.stream.close()
        renderDetail()
        return
      }
      if (detail.view && data.version < detail.view.version && event !== 'snapshot') return
      detail.view = data
      upsert(data)
      if (detail.edit && data.version !== detail.edit.base) detail.edit.changedTo = data.version
      renderDetail()
      scheduleHistory()
    },
  })
}

/** Closes the details panel. */
export function closeDetail() {
  if (detail.stream) detail.stream.close()
  clearTimeout(detail.historyTimer)
  detail.id = null
  detail.view = null
  detail.stream = null
  detail.edit = null
  markSelected(null)
  $('detail').hidden = true
}

/** Opens the session the address names (`#session=<id>`), or closes the panel. */
export function selectFromHash() {
  const match = /^#session=(.+)$/.exec(location.hash)
  /** @type {string | null} */
  let id = null
  if (match) {
    try {
      id = decodeURIComponent(match[1])
    } catch (e) {
      id = null
    }
  }
  if (id === detail.id) return
  if (id) openDetail(id)
  else closeDetail()
}
