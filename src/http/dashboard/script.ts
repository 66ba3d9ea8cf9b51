/**
 * @module http/dashboard/script
 * The dashboard's client code, inlined into the page. Plain browser JavaScript kept as a string
 * (no build step at runtime); every text that came from a model is set with textContent.
 */

export const DASHBOARD_SCRIPT = String.raw`
(function () {
  'use strict'

  var KEY_STORAGE = 'agent-todos.key'
  var STALE_AFTER_MS = Number(document.body.dataset.staleAfterMs) || 900000
  // the page carries the server's clock, so staleness does not depend on the browser's
  var clockOffset = (Number(document.body.dataset.serverNow) || Date.now()) - Date.now()
  var STATUSES = ['pending', 'in_progress', 'completed', 'cancelled', 'blocked']
  var STATUS_LABEL = {
    pending: 'Pending',
    in_progress: 'In progress',
    completed: 'Completed',
    cancelled: 'Cancelled',
    blocked: 'Blocked',
  }
  var STATUS_MARK = { pending: '○', in_progress: '▶', completed: '✓', cancelled: '✕', blocked: '!' }
  var OUTCOME_LABEL = {
    completed: 'Ended · completed',
    max_turns: 'Ended at max turns',
    error: 'Ended with error',
    cancelled: 'Ended · cancelled',
  }
  var STATE_LABEL = { working: 'Working', stale: 'Stale', done: 'Done', ended: 'Ended' }
  var SOURCE_LABEL = { round: 'Round', put: 'Operator edit', end: 'Ended', delete: 'Deleted' }

  var $ = function (id) { return document.getElementById(id) }
  var now = function () { return Date.now() + clockOffset }

  var app = {
    key: readKey(),
    role: null,
    sessions: new Map(),
    dirty: new Set(),
    order: [],
    filter: 'all',
    search: '',
    tenantStream: null,
    frame: 0,
    selected: null,
  }

  // ---- small helpers -------------------------------------------------------------------------

  function readKey() {
    try { return localStorage.getItem(KEY_STORAGE) || '' } catch (e) { return '' }
  }

  function writeKey(key) {
    try {
      if (key) localStorage.setItem(KEY_STORAGE, key)
      else localStorage.removeItem(KEY_STORAGE)
    } catch (e) { /* storage disabled: the key lives for this page only */ }
  }

  /** Builds an element; strings become text nodes, never markup. */
  function el(tag, props, children) {
    var node = document.createElement(tag)
    if (props) {
      for (var name in props) {
        var value = props[name]
        if (value === null || value === undefined || value === false) continue
        if (name === 'class') node.className = value
        else if (name === 'text') node.textContent = value
        else node.setAttribute(name, value === true ? '' : String(value))
      }
    }
    if (children) {
      for (var i = 0; i < children.length; i++) {
        if (children[i] !== null && children[i] !== undefined) node.append(children[i])
      }
    }
    return node
  }

  function setText(node, text) {
    if (node.textContent !== text) node.textContent = text
  }

  function relativeTime(iso) {
    var seconds = Math.max(0, Math.floor((now() - Date.parse(iso)) / 1000))
    if (seconds < 1) return 'now'
    if (seconds < 60) return seconds + ' s ago'
    var minutes = Math.floor(seconds / 60)
    if (minutes < 60) return minutes + ' min ago'
    var hours = Math.floor(minutes / 60)
    if (hours < 48) return hours + ' h ago'
    return Math.floor(hours / 24) + ' d ago'
  }

  function absoluteTime(iso) {
    var date = new Date(iso)
    return isNaN(date.getTime()) ? iso : date.toLocaleString()
  }

  function sessionPath(id, suffix) {
    return '/v1/sessions/' + encodeURIComponent(id) + (suffix || '')
  }

  function quote(text) {
    var s = String(text)
    return '“' + (s.length > 80 ? s.slice(0, 79) + '…' : s) + '”'
  }

  var toastTimer = 0
  function toast(text) {
    var node = $('toast')
    node.textContent = text
    clearTimeout(toastTimer)
    toastTimer = setTimeout(function () { node.textContent = '' }, 5000)
  }

  // ---- API and auth --------------------------------------------------------------------------

  function headers(extra) {
    var result = Object.assign({}, extra || {})
    if (app.key) result.Authorization = 'Bearer ' + app.key
    return result
  }

  async function api(method, path, body, extra) {
    var init = { method: method, headers: headers(extra), cache: 'no-store' }
    if (body !== undefined) {
      init.body = JSON.stringify(body)
      init.headers['Content-Type'] = 'application/json'
    }
    var res
    try {
      res = await fetch(path, init)
    } catch (e) {
      return { status: 0, ok: false, data: null, headers: new Headers() }
    }
    var data = null
    if ((res.headers.get('content-type') || '').indexOf('json') >= 0) {
      try { data = await res.json() } catch (e) { data = null }
    }
    if (res.status === 401) needKey()
    return { status: res.status, ok: res.ok, data: data, headers: res.headers }
  }

  function problemText(res) {
    if (res.status === 0) return 'The service is unreachable.'
    if (res.data && res.data.detail) return res.data.detail
    return 'HTTP ' + res.status
  }

  function setConnection(kind, text) {
    var node = $('conn')
    node.dataset.conn = kind
    setText($('conn-text'), text)
  }

  function needKey() {
    setConnection('key', app.key ? 'Key refused' : 'Key needed')
    openKeyDialog(
      app.key
        ? 'The service refused the stored key. Enter a valid key.'
        : 'This service requires an API key. Enter an agent key to read and edit, or a viewer key to read.'
    )
  }

  function openKeyDialog(reason) {
    var dialog = $('key-dialog')
    setText($('key-reason'), reason || 'Keys are sent as Authorization: Bearer <key>.')
    $('key-input').value = app.key
    if (!dialog.open) dialog.showModal()
    $('key-input').focus()
  }

  function useKey(key) {
    app.key = key
    writeKey(key)
    app.role = null
    renderRole()
    restartStreams()
  }

  // There is no whoami route; a write with an invalid session id is answered by the key check
  // (403 for a viewer) before the request is validated (400 otherwise), and changes nothing.
  async function detectRole() {
    var res = await api('PUT', '/v1/sessions/-/todos', { items: [] })
    if (res.status === 403) app.role = 'viewer'
    else if (res.status === 400) app.role = app.key ? 'agent' : 'open'
    else app.role = null
    renderRole()
    renderDetail()
  }

  function canEdit() {
    return app.role === 'agent' || app.role === 'open'
  }

  function renderRole() {
    var node = $('role')
    var label = { agent: 'Agent key · can edit', viewer: 'Viewer key · read-only', open: 'Open access' }[app.role]
    node.hidden = !label
    node.dataset.role = app.role || ''
    if (label) setText(node, label)
  }

  // ---- Server-Sent Events over fetch (EventSource cannot send Authorization) -----------------

  async function readEvents(body, onEvent, onBytes) {
    var reader = body.getReader()
    var decoder = new TextDecoder()
    var buffer = ''
    var type = ''
    var data = []
    var id = null
    for (;;) {
      var chunk = await reader.read()
      if (chunk.done) return
      onBytes()
      buffer += decoder.decode(chunk.value, { stream: true })
      var lines = buffer.split('\n')
      buffer = lines.pop()
      for (var i = 0; i < lines.length; i++) {
        var line = lines[i].replace(/\r$/, '')
        if (line === '') {
          if (data.length) onEvent({ event: type || 'message', data: data.join('\n'), id: id })
          type = ''
          data = []
          continue
        }
        if (line.charAt(0) === ':') continue
        var colon = line.indexOf(':')
        var field = colon < 0 ? line : line.slice(0, colon)
        var value = colon < 0 ? '' : line.slice(colon + 1)
        if (value.charAt(0) === ' ') value = value.slice(1)
        if (field === 'event') type = value
        else if (field === 'data') data.push(value)
        else if (field === 'id' && value.indexOf('\0') < 0) id = value
      }
    }
  }

  /**
   * A resilient event stream: reconnects with backoff; sends Last-Event-ID when the caller
   * knows one, else the server starts again with a snapshot.
   */
  function openStream(path, handlers) {
    var controller = null
    var closed = false
    var delay = 1000
    var retryTimer = 0
    var watchdog = 0
    var lastId = null

    function armWatchdog() {
      clearTimeout(watchdog)
      // heartbeats come every 15 s; silence this long means a dead connection
      watchdog = setTimeout(function () { if (controller) controller.abort() }, 45000)
    }

    function retry() {
      if (closed) return
      handlers.onStatus('reconnecting')
      retryTimer = setTimeout(connect, delay)
      delay = Math.min(delay * 2, 15000)
    }

    async function connect() {
      if (closed) return
      controller = new AbortController()
      var extra = { Accept: 'text/event-stream' }
      var resume = handlers.resumeFrom ? handlers.resumeFrom() : null
      if (resume !== null && resume !== undefined) extra['Last-Event-ID'] = String(resume)
      var res
      try {
        res = await fetch(path, { headers: headers(extra), signal: controller.signal, cache: 'no-store' })
      } catch (e) {
        return retry()
      }
      if (res.status === 401) {
        handlers.onStatus('key')
        needKey()
        return
      }
      if (!res.ok || !res.body) {
        var data = null
        try { data = await res.json() } catch (e) { data = null }
        if (handlers.onFail && handlers.onFail(res.status, data) === false) return
        return retry()
      }
      delay = 1000
      handlers.onStatus('live')
      armWatchdog()
      try {
        await readEvents(res.body, function (message) {
          if (message.id !== null) lastId = message.id
          var payload
          try { payload = JSON.parse(message.data) } catch (e) { return }
          handlers.onEvent(message.event, payload, message.id)
        }, armWatchdog)
      } catch (e) {
        // aborted or the network dropped: reconnect below
      }
      clearTimeout(watchdog)
      retry()
    }

    connect()
    return {
      lastId: function () { return lastId },
      close: function () {
        closed = true
        clearTimeout(retryTimer)
        clearTimeout(watchdog)
        if (controller) controller.abort()
      },
    }
  }

  // ---- session model -------------------------------------------------------------------------

  function summaryOf(view) {
    return {
      session_id: view.session_id,
      dialect: view.dialect,
      version: view.version,
      progress: view.progress,
      current: view.current,
      round: view.round,
      reminder_due: view.reminder_due,
      ended: view.ended || null,
      stale: view.stale === true,
      updated_at: view.updated_at,
    }
  }

  function unfinished(progress) {
    return progress.total - progress.completed - progress.cancelled
  }

  function classify(s) {
    if (s.ended) return 'ended'
    var open = unfinished(s.progress)
    if (s.progress.total > 0 && open === 0) return 'done'
    if (open > 0 && (s.stale || now() - Date.parse(s.updated_at) > STALE_AFTER_MS)) return 'stale'
    return 'working'
  }

  function badOutcome(s) {
    return !!s.ended && s.ended.outcome !== 'completed'
  }

  function stateBadge(s, kind) {
    if (kind === 'ended') {
      return el('span', {
        class: 'badge badge-ended' + (badOutcome(s) ? ' bad' : ''),
        text: OUTCOME_LABEL[s.ended.outcome] || 'Ended',
      })
    }
    if (kind === 'stale') return el('span', { class: 'badge badge-stale', text: 'Stale', title: 'No change for ' + Math.round(STALE_AFTER_MS / 1000) + ' s with unfinished items' })
    if (kind === 'done') return el('span', { class: 'badge badge-done', text: 'Done' })
    return el('span', { class: 'badge badge-working badge-live', text: 'Working' })
  }

  function badges(s, kind) {
    var list = [stateBadge(s, kind)]
    if (s.reminder_due && kind !== 'ended') {
      list.push(el('span', { class: 'badge badge-reminder', text: 'Reminder due', title: 'The model has stopped updating its list: the next round reply carries the reminder' }))
    }
    return list
  }

  function progressBar(progress, kind, label) {
    var percent = progress.percent
    var fill = el('div', { class: 'bar-fill ' + kind })
    fill.style.width = percent + '%'
    return el('div', { class: 'progress' }, [
      el('div', {
        class: 'bar',
        role: 'progressbar',
        'aria-valuemin': 0,
        'aria-valuemax': 100,
        'aria-valuenow': percent,
        'aria-label': label,
      }, [fill]),
      el('span', { class: 'progress-text' }, [
        el('span', { class: 'pct', text: percent + '%' }),
        el('span', { class: 'sub', text: progress.completed + '/' + (progress.total - progress.cancelled) + ' done' }),
      ]),
    ])
  }

  function currentCell(s, kind) {
    if (s.current) {
      var text = s.current.active_form || s.current.content
      return el('div', { class: 'current', title: text }, [
        el('span', { class: 'spinner', 'aria-hidden': 'true' }),
        kind === 'ended' ? el('span', { class: 'item-prefix', text: 'stopped at ' }) : null,
        el('span', { class: 'current-text', text: text }),
      ])
    }
    var none = s.progress.total === 0 ? 'No items yet' : kind === 'done' ? 'All items done' : 'Nothing in progress'
    return el('div', { class: 'current none', text: none })
  }

  /** Stores a session's summary; an older version is ignored unless force (a snapshot). */
  function upsert(summary, force) {
    var record = app.sessions.get(summary.session_id)
    if (!record) {
      record = { s: summary, row: null, kind: null }
      app.sessions.set(summary.session_id, record)
    } else {
      if (!force && summary.version < record.s.version) return
      record.s = summary
    }
    markDirty(summary.session_id)
  }

  function remove(id) {
    var record = app.sessions.get(id)
    if (!record) return
    if (record.row) record.row.remove()
    app.sessions.delete(id)
    markDirty(null)
  }

  function markDirty(id) {
    if (id !== null) app.dirty.add(id)
    if (!app.frame) app.frame = requestAnimationFrame(flush)
  }

  function buildRow(record) {
    var s = record.s
    var kind = classify(s)
    record.kind = kind
    var href = '#session=' + encodeURIComponent(s.session_id)
    var row = el('tr', {
      class: 'state-' + kind + (badOutcome(s) ? ' outcome-bad' : '') + (app.selected === s.session_id ? ' selected' : ''),
      'data-session-id': s.session_id,
      'data-state': kind,
      'data-version': s.version,
    }, [
      el('td', { class: 'cell-session' }, [
        el('a', { class: 'sid', href: href, text: s.session_id, 'aria-current': app.selected === s.session_id ? 'true' : null }),
        el('span', { class: 'sub', text: s.dialect + ' · round ' + s.round + ' · v' + s.version }),
      ]),
      el('td', { class: 'cell-progress' }, [progressBar(s.progress, kind, 'Progress of ' + s.session_id)]),
      el('td', { class: 'cell-current' }, [currentCell(s, kind)]),
      el('td', { class: 'cell-state' }, [el('div', { class: 'badges' }, badges(s, kind))]),
      el('td', { class: 'cell-updated' }, [
        el('time', { datetime: s.updated_at, title: absoluteTime(s.updated_at), text: relativeTime(s.updated_at) }),
      ]),
    ])
    if (record.row) record.row.replaceWith(row)
    record.row = row
  }

  function matches(record) {
    if (app.filter !== 'all' && record.kind !== app.filter) return false
    return !app.search || record.s.session_id.toLowerCase().indexOf(app.search) >= 0
  }

  function flush() {
    app.frame = 0
    app.dirty.forEach(function (id) {
      var record = app.sessions.get(id)
      if (record) buildRow(record)
    })
    app.dirty.clear()
    var records = Array.from(app.sessions.values())
    records.sort(function (a, b) {
      var diff = Date.parse(b.s.updated_at) - Date.parse(a.s.updated_at)
      return diff !== 0 ? diff : a.s.session_id < b.s.session_id ? -1 : 1
    })
    var tbody = $('rows')
    var counts = { all: records.length, working: 0, stale: 0, ended: 0, done: 0 }
    var visible = 0
    for (var i = 0; i < records.length; i++) {
      var record = records[i]
      counts[record.kind]++
      record.row.hidden = !matches(record)
      if (!record.row.hidden) visible++
      if (tbody.children[i] !== record.row) tbody.insertBefore(record.row, tbody.children[i] || null)
    }
    for (var name in counts) setText($('count-' + name), String(counts[name]))
    var empty = $('empty')
    empty.hidden = visible > 0
    setText(empty, records.length === 0
      ? 'No sessions yet. A session appears here when its agent loop posts its first round.'
      : 'No session matches this filter.')
  }

  // staleness and "last update" change with time alone
  function tick() {
    app.sessions.forEach(function (record) {
      if (!record.row) return
      if (!record.s.ended && classify(record.s) !== record.kind) markDirty(record.s.session_id)
      var time = record.row.querySelector('time')
      if (time) setText(time, relativeTime(record.s.updated_at))
    })
    if (detail.view && !detail.gone) {
      if (classify(summaryOf(detail.view)) !== detail.kind) renderDetailHeader()
      else setText($('detail-updated'), lastUpdateText(detail.view))
    }
  }

  function startTenantStream() {
    if (app.tenantStream) app.tenantStream.close()
    setConnection('connecting', 'Connecting…')
    app.tenantStream = openStream('/v1/events', {
      onStatus: function (status) {
        if (status === 'live') setConnection('live', 'Live')
        else if (status === 'reconnecting') setConnection('reconnecting', 'Reconnecting…')
      },
      onFail: function (status, data) {
        setConnection('error', (data && data.detail) || 'HTTP ' + status)
      },
      onEvent: function (event, data) {
        if (event === 'snapshot') {
          // a reconnect starts over: the snapshot is the truth
          var seen = new Set()
          for (var i = 0; i < data.sessions.length; i++) {
            var summary = data.sessions[i]
            seen.add(summary.session_id)
            upsert(summary, true)
          }
          Array.from(app.sessions.keys()).forEach(function (id) { if (!seen.has(id)) remove(id) })
        } else if (event === 'update') {
          upsert(summaryOf(data))
        } else if (event === 'delete') {
          remove(data.session_id)
        }
      },
    })
  }

  function restartStreams() {
    startTenantStream()
    if (detail.id) openDetail(detail.id)
    detectRole()
  }

  // ---- detail panel --------------------------------------------------------------------------

  var detail = { id: null, view: null, kind: null, stream: null, history: [], historyTimer: 0, gone: null }
  var edit = null

  function selectFromHash() {
    var match = /^#session=(.+)$/.exec(location.hash)
    var id = null
    if (match) {
      try { id = decodeURIComponent(match[1]) } catch (e) { id = null }
    }
    if (id === detail.id) return
    if (id) openDetail(id)
    else closeDetail()
  }

  function markSelected(id) {
    var previous = app.selected
    app.selected = id
    if (previous) markDirty(previous)
    if (id) markDirty(id)
  }

  function openDetail(id) {
    if (detail.stream) detail.stream.close()
    clearTimeout(detail.historyTimer)
    var same = detail.id === id
    detail.id = id
    if (!same) {
      detail.view = null
      detail.history = []
      edit = null
      showMessage(null)
    }
    detail.gone = null
    markSelected(id)
    $('detail').hidden = false
    renderDetail()
    detail.stream = openStream(sessionPath(id, '/events'), {
      resumeFrom: function () { return detail.view ? detail.view.version : null },
      onStatus: function () {},
      onFail: function (status, data) {
        if (status === 404) {
          detail.gone = 'No session ' + quote(id) + ' in this tenant.'
          renderDetail()
          return false
        }
      },
      onEvent: function (event, data) {
        if (event === 'delete') {
          detail.gone = 'This session was deleted.'
          detail.stream.close()
          renderDetail()
          return
        }
        if (detail.view && data.version < detail.view.version && event !== 'snapshot') return
        detail.view = data
        upsert(summaryOf(data))
        if (edit && data.version !== edit.base) edit.changedTo = data.version
        renderDetail()
        scheduleHistory()
      },
    })
  }

  function closeDetail() {
    if (detail.stream) detail.stream.close()
    clearTimeout(detail.historyTimer)
    detail.id = null
    detail.view = null
    detail.stream = null
    edit = null
    markSelected(null)
    $('detail').hidden = true
  }

  function scheduleHistory() {
    clearTimeout(detail.historyTimer)
    detail.historyTimer = setTimeout(loadHistory, 150)
  }

  async function loadHistory() {
    var id = detail.id
    if (!id) return
    var res = await api('GET', sessionPath(id, '/history'))
    if (detail.id !== id || !res.ok || !res.data) return
    detail.history = res.data.entries
    renderHistory()
  }

  function showMessage(text, kind) {
    var node = $('detail-message')
    node.hidden = !text
    node.className = 'message ' + (kind || 'info')
    node.setAttribute('role', kind === 'error' ? 'alert' : 'status')
    node.textContent = text || ''
  }

  function lastUpdateText(view) {
    return absoluteTime(view.updated_at) + ' (' + relativeTime(view.updated_at) + ')'
  }

  function renderDetailHeader() {
    var view = detail.view
    var s = summaryOf(view)
    var kind = classify(s)
    detail.kind = kind
    var badgesNode = $('detail-badges')
    badgesNode.replaceChildren.apply(badgesNode, badges(s, kind))
    var progressNode = $('detail-progress')
    progressNode.replaceChildren(progressBar(view.progress, kind, 'Progress of ' + view.session_id))
    var p = view.progress
    var meta = [
      ['Dialect', view.dialect],
      ['Version', String(view.version)],
      ['Round', view.round + ' (' + view.rounds_since_todo + ' since the list was last updated)'],
      ['Items', p.total + ' total · ' + p.completed + ' completed · ' + p.in_progress + ' in progress · ' + p.pending + ' pending' + (p.blocked ? ' · ' + p.blocked + ' blocked' : '') + (p.cancelled ? ' · ' + p.cancelled + ' cancelled' : '')],
      ['Created', absoluteTime(view.created_at)],
      ['Last update', lastUpdateText(view), 'detail-updated'],
    ]
    var dl = $('detail-meta')
    dl.replaceChildren()
    meta.forEach(function (row) { dl.append(el('dt', { text: row[0] }), el('dd', { text: row[1], id: row[2] || null })) })
    var endedNode = $('detail-ended')
    endedNode.hidden = !view.ended
    if (view.ended) {
      var children = [el('strong', { text: (OUTCOME_LABEL[view.ended.outcome] || 'Ended') + ' · ' + absoluteTime(view.ended.at) })]
      if (view.ended.detail) children.push(el('div', { text: view.ended.detail }))
      if (view.ended.unfinished.length) children.push(el('div', { class: 'item-sub', text: 'Left unfinished: #' + view.ended.unfinished.join(', #') }))
      endedNode.className = 'ended-box' + (badOutcome(s) ? ' bad' : '')
      endedNode.replaceChildren.apply(endedNode, children)
    }
  }

  function renderDetail() {
    setText($('detail-title'), detail.id || '')
    var loaded = !!detail.view && !detail.gone
    $('detail-body').hidden = !loaded
    var status = $('detail-status')
    status.hidden = loaded
    setText(status, detail.gone || 'Loading…')
    if (!loaded) return
    renderDetailHeader()
    $('edit-button').hidden = !canEdit() || !!edit
    $('edit-readonly').hidden = canEdit() || app.role === null
    renderItems()
    renderEditForm()
  }

  function renderItems() {
    var list = $('detail-items')
    list.hidden = !!edit
    list.replaceChildren()
    var items = detail.view.items
    if (!items.length) {
      list.append(el('li', { class: 'status-pending' }, [el('span', { class: 'mark', 'aria-hidden': 'true', text: '·' }), el('span', { class: 'text item-sub', text: 'The list is empty.' })]))
      return
    }
    items.forEach(function (item) {
      var textChildren = [
        el('span', { class: 'visually-hidden', text: STATUS_LABEL[item.status] + ': ' }),
        item.content,
      ]
      var sub = []
      if (item.status === 'in_progress' && item.active_form && item.active_form !== item.content) sub.push(item.active_form)
      sub.push('#' + item.id + ' · ' + STATUS_LABEL[item.status])
      if (item.owner) sub.push('owner ' + item.owner)
      if (item.blocked_by && item.blocked_by.length) sub.push('blocked by #' + item.blocked_by.join(', #'))
      textChildren.push(el('span', { class: 'item-sub', text: sub.join(' · ') }))
      list.append(el('li', { class: 'status-' + item.status, 'data-item-id': item.id }, [
        el('span', { class: 'mark', 'aria-hidden': 'true', text: STATUS_MARK[item.status] || '?' }),
        el('span', { class: 'text' }, textChildren),
      ]))
    })
  }

  // ---- history -------------------------------------------------------------------------------

  function changes(before, after) {
    var lines = []
    var previous = new Map()
    before.forEach(function (item) { previous.set(item.id, item) })
    var kept = new Set()
    after.forEach(function (item) {
      var old = previous.get(item.id)
      if (!old) {
        lines.push('Added ' + quote(item.content) + ' (' + STATUS_LABEL[item.status].toLowerCase() + ')')
        return
      }
      kept.add(item.id)
      if (old.content !== item.content) lines.push('Renamed ' + quote(old.content) + ' to ' + quote(item.content))
      if (old.status !== item.status) {
        lines.push(quote(item.content) + ': ' + STATUS_LABEL[old.status].toLowerCase() + ' → ' + STATUS_LABEL[item.status].toLowerCase())
      }
    })
    before.forEach(function (item) { if (!kept.has(item.id)) lines.push('Removed ' + quote(item.content)) })
    return lines
  }

  /** History entries as display groups: consecutive rounds that left the list alone are one. */
  function historyGroups(entries) {
    var groups = []
    for (var i = 0; i < entries.length; i++) {
      var entry = entries[i]
      var lines = i > 0 ? changes(entries[i - 1].items, entry.items) : ['List of ' + entry.items.length + ' item' + (entry.items.length === 1 ? '' : 's')]
      var last = groups[groups.length - 1]
      if (!lines.length && entry.source === 'round' && last && last.quiet) {
        last.to = entry
        last.count++
        continue
      }
      groups.push({ from: entry, to: entry, count: 1, lines: lines, quiet: !lines.length && entry.source === 'round' })
    }
    return groups
  }

  function renderHistory() {
    var list = $('detail-history')
    list.replaceChildren()
    if (!detail.history.length) {
      list.append(el('li', { class: 'item-sub', text: 'No history kept yet.' }))
      return
    }
    var groups = historyGroups(detail.history)
    for (var i = groups.length - 1; i >= 0; i--) {
      var group = groups[i]
      var entry = group.to
      var done = entry.items.filter(function (item) { return item.status === 'completed' }).length
      var lines = group.lines
      if (group.quiet) lines = [group.count === 1 ? 'A round without a list change' : group.count + ' rounds without a list change']
      else if (!lines.length) lines = ['No list change']
      var shown = lines.slice(0, 6)
      if (lines.length > shown.length) shown.push('…and ' + (lines.length - shown.length) + ' more')
      var version = group.count > 1 ? 'v' + group.from.version + '–v' + group.to.version : 'v' + entry.version
      list.append(el('li', { class: 'src-' + entry.source + (group.quiet ? ' quiet' : '') }, [
        el('div', { class: 'h-head' }, [
          el('span', { class: 'h-version', text: version }),
          el('span', { class: 'h-source', text: SOURCE_LABEL[entry.source] || entry.source }),
          el('time', { datetime: entry.at, title: absoluteTime(entry.at), text: new Date(entry.at).toLocaleTimeString() }),
          el('span', { class: 'item-sub', text: done + '/' + entry.items.length + ' completed' }),
        ]),
        el('ul', null, shown.map(function (line) { return el('li', { text: line }) })),
      ]))
    }
  }

  // ---- editing -------------------------------------------------------------------------------

  function startEdit() {
    if (!detail.view || !canEdit()) return
    edit = {
      base: detail.view.version,
      changedTo: null,
      saving: false,
      items: detail.view.items.map(function (item) { return { item: item, content: item.content, status: item.status } }),
    }
    showMessage(null)
    renderDetail()
    var first = $('edit-list').querySelector('select, input')
    if (first) first.focus()
    else $('add-input').focus()
  }

  function cancelEdit() {
    edit = null
    renderDetail()
    $('edit-button').focus()
  }

  function nextItemId() {
    var ids = edit.items.map(function (row) { return row.item ? row.item.id : row.id })
    var numeric = ids.every(function (id) { return /^\d+$/.test(id) })
    if (numeric) {
      var max = ids.reduce(function (m, id) { return Math.max(m, Number(id)) }, 0)
      if (detail.view) detail.view.items.forEach(function (item) { if (/^\d+$/.test(item.id)) max = Math.max(max, Number(item.id)) })
      return String(max + 1)
    }
    var n = ids.length + 1
    while (ids.indexOf('item-' + n) >= 0) n++
    return 'item-' + n
  }

  function renderEditForm() {
    var form = $('edit-form')
    form.hidden = !edit
    if (!edit) return
    var note = $('edit-note')
    note.hidden = edit.changedTo === null
    if (edit.changedTo !== null) {
      setText(note, 'The list changed on the server (now version ' + edit.changedTo + ') since you started editing version ' + edit.base + '; saving will be refused.')
    }
    var list = $('edit-list')
    list.replaceChildren()
    edit.items.forEach(function (row, index) {
      var n = index + 1
      var select = el('select', { 'aria-label': 'Status of item ' + n, 'data-index': index, class: 'edit-status' })
      STATUSES.forEach(function (status) {
        var option = el('option', { value: status, text: STATUS_LABEL[status] })
        if (status === row.status) option.selected = true
        select.append(option)
      })
      select.addEventListener('change', function () { row.status = select.value })
      var input = el('input', { type: 'text', 'aria-label': 'Text of item ' + n, class: 'edit-text', maxlength: 10000 })
      input.value = row.content
      input.addEventListener('input', function () { row.content = input.value })
      var removeButton = el('button', { type: 'button', class: 'btn small danger', 'aria-label': 'Remove item ' + n, title: 'Remove', text: 'Remove' })
      removeButton.addEventListener('click', function () {
        edit.items.splice(index, 1)
        renderEditForm()
      })
      list.append(el('div', { class: 'edit-row', 'data-item-id': row.item ? row.item.id : row.id }, [select, input, removeButton]))
    })
    $('save-button').disabled = edit.saving
  }

  function addItem() {
    var input = $('add-input')
    var text = input.value.trim()
    if (!text) { input.focus(); return }
    edit.items.push({ item: null, id: nextItemId(), content: text, status: 'pending' })
    input.value = ''
    renderEditForm()
    input.focus()
  }

  function editedItems() {
    return edit.items.map(function (row) {
      if (!row.item) return { id: row.id, content: row.content, status: row.status, blocks: [], blocked_by: [] }
      var item = Object.assign({}, row.item, { content: row.content, status: row.status })
      // a renamed item's active form would describe the old text; the dialect derives a new one
      if (row.content !== row.item.content) delete item.active_form
      return item
    })
  }

  async function saveEdit() {
    if (!edit || edit.saving) return
    var id = detail.id
    edit.saving = true
    renderEditForm()
    var res = await api('PUT', sessionPath(id, '/todos'), { items: editedItems() }, { 'If-Match': '"' + edit.base + '"' })
    if (detail.id !== id || !edit) return
    edit.saving = false
    if (res.ok) {
      edit = null
      detail.view = res.data
      upsert(summaryOf(res.data))
      renderDetail()
      scheduleHistory()
      showMessage('Saved as version ' + res.data.version + '. The agent is told of the change with its next round.', 'info')
      toast('List of ' + id + ' saved')
      return
    }
    if (res.status === 412) {
      edit = null
      var fresh = await api('GET', sessionPath(id))
      if (fresh.ok) {
        detail.view = fresh.data
        upsert(summaryOf(fresh.data))
      }
      renderDetail()
      scheduleHistory()
      showMessage('Not saved: someone changed this list while you were editing' + (fresh.ok ? ' (it is now version ' + fresh.data.version + ')' : '') + '. The list has been reloaded; make your change again.', 'error')
      return
    }
    if (res.status === 422) {
      renderEditForm()
      showMessage('The ' + detail.view.dialect + ' dialect refused this list: ' + problemText(res), 'error')
      return
    }
    if (res.status === 403) {
      edit = null
      app.role = 'viewer'
      renderRole()
      renderDetail()
      showMessage('Not saved: ' + problemText(res), 'error')
      return
    }
    if (res.status === 401) {
      renderEditForm()
      showMessage('Not saved: the service needs a valid key.', 'error')
      return
    }
    renderEditForm()
    showMessage('Not saved: ' + problemText(res), 'error')
  }

  // ---- wiring --------------------------------------------------------------------------------

  document.querySelectorAll('.filter').forEach(function (button) {
    button.addEventListener('click', function () {
      app.filter = button.dataset.filter
      document.querySelectorAll('.filter').forEach(function (other) {
        other.setAttribute('aria-pressed', other === button ? 'true' : 'false')
      })
      markDirty(null)
    })
  })
  $('search').addEventListener('input', function () {
    app.search = $('search').value.trim().toLowerCase()
    markDirty(null)
  })
  $('rows').addEventListener('click', function (event) {
    var row = event.target.closest('tr')
    if (!row || event.target.closest('a')) return
    location.hash = 'session=' + encodeURIComponent(row.dataset.sessionId)
  })
  window.addEventListener('hashchange', selectFromHash)
  $('detail-close').addEventListener('click', function () {
    history.pushState(null, '', location.pathname + location.search)
    closeDetail()
  })
  document.addEventListener('keydown', function (event) {
    if (event.key === 'Escape' && detail.id && !edit && !$('key-dialog').open) $('detail-close').click()
  })
  $('edit-button').addEventListener('click', startEdit)
  $('cancel-button').addEventListener('click', cancelEdit)
  $('add-button').addEventListener('click', addItem)
  $('add-input').addEventListener('keydown', function (event) {
    if (event.key === 'Enter') { event.preventDefault(); addItem() }
  })
  $('edit-form').addEventListener('submit', function (event) {
    event.preventDefault()
    saveEdit()
  })
  $('key-button').addEventListener('click', function () { openKeyDialog(null) })
  $('key-form').addEventListener('submit', function (event) {
    event.preventDefault()
    var key = $('key-input').value.trim()
    $('key-dialog').close()
    useKey(key)
  })
  $('key-clear').addEventListener('click', function () {
    $('key-dialog').close()
    useKey('')
    toast('Key forgotten')
  })
  $('key-cancel').addEventListener('click', function () { $('key-dialog').close() })

  startTenantStream()
  detectRole()
  selectFromHash()
  setInterval(tick, 1000)
})()
`
