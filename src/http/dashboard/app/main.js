// @ts-check
;(function () {
  'use strict'

  // Types come from the client generated from the OpenAPI document (src/client/schema.ts).
  /** @typedef {import('../../../client/schema.js').components['schemas']} Schemas */
  /** @typedef {Schemas['SessionSummary']} SessionSummary */
  /** @typedef {Schemas['SessionView']} SessionView */
  /** @typedef {Schemas['Item']} Item */
  /** @typedef {Schemas['Progress']} Progress */
  /** @typedef {Schemas['HistoryEntry']} HistoryEntry */
  /** @typedef {Schemas['Whoami']} Whoami */
  /** @typedef {Schemas['ProblemDetails']} ProblemDetails */
  /** @typedef {'agent' | 'viewer' | 'open'} Role */
  /** @typedef {SessionSummary | SessionView} Shown a row's session: a summary, or the open session's view */
  /**
   * @typedef {object} SessionRecord
   * @property {Shown} s
   * @property {HTMLTableRowElement | null} row
   * @property {string} kind
   * @property {number} depth - 0 at the top level; a subagent listed under its main session: 1
   */
  /**
   * @template T
   * @typedef {{ status: number, ok: boolean, data: T | null, headers: Headers }} ApiResult
   */
  /** @typedef {{ event: string, data: string, id: string | null }} SseMessage */
  /**
   * @typedef {object} StreamHandlers
   * @property {(status: string) => void} onStatus
   * @property {(event: string, data: any, id: string | null) => void} onEvent
   * @property {(status: number, data: ProblemDetails | null) => boolean | void} [onFail]
   * @property {() => number | null} [resumeFrom]
   */

  var KEY_STORAGE = 'agent-todos.key'
  var STALE_AFTER_MS = Number(document.body.dataset.staleAfterMs) || 900000
  // the page carries the server's clock, so relative times do not depend on the browser's
  var clockOffset = (Number(document.body.dataset.serverNow) || Date.now()) - Date.now()
  var STATUSES = ['pending', 'in_progress', 'completed', 'cancelled', 'blocked']
  /** @type {Record<string, string>} */
  var STATUS_LABEL = {
    pending: 'Pending',
    in_progress: 'In progress',
    completed: 'Completed',
    cancelled: 'Cancelled',
    blocked: 'Blocked',
  }
  /** @type {Record<string, string>} */
  var STATUS_MARK = { pending: '○', in_progress: '▶', completed: '✓', cancelled: '✕', blocked: '!' }
  // the observed agents, by a session's `source`; sessions fed by rounds have no badge
  /** @type {Record<string, string>} */
  var AGENT_LABEL = {
    'claude-code': 'Claude Code',
    'claude-agent-sdk': 'Claude Agent SDK',
    codex: 'Codex',
    'gemini-cli': 'Gemini CLI',
    openhands: 'OpenHands',
  }
  // Claude Code's switch for its todo tools, off by default on current models
  var CLAUDE_TODO_TOOLS_ENV = 'CLAUDE_CODE_ENABLE_TODO_TOOLS'
  /** @type {Record<string, string>} */
  var OUTCOME_LABEL = {
    completed: 'Ended · completed',
    max_turns: 'Ended at max turns',
    error: 'Ended with error',
    cancelled: 'Ended · cancelled',
  }
  /** @type {Record<string, string>} */
  var SOURCE_LABEL = { round: 'Round', put: 'Operator edit', end: 'Ended', delete: 'Deleted' }

  /**
   * The page's element with this id (the page has every id the script names).
   * @param {string} id
   * @returns {HTMLElement}
   */
  var $ = function (id) {
    var node = document.getElementById(id)
    if (!node) throw new Error('the page has no #' + id)
    return node
  }
  /** @param {string} id */
  var inputOf = function (id) {
    return /** @type {HTMLInputElement} */ ($(id))
  }
  /** @param {string} id */
  var dialogOf = function (id) {
    return /** @type {HTMLDialogElement} */ ($(id))
  }
  var now = function () {
    return Date.now() + clockOffset
  }

  var app = {
    key: readKey(),
    /** @type {Role | null} */
    role: null,
    /** @type {Map<string, SessionRecord>} */
    sessions: new Map(),
    /** @type {Set<string>} */
    dirty: new Set(),
    filter: 'all',
    search: '',
    /** @type {Stream | null} */
    tenantStream: null,
    frame: 0,
    /** @type {string | null} */
    selected: null,
  }

  // ---- small helpers -------------------------------------------------------------------------

  function readKey() {
    try {
      return localStorage.getItem(KEY_STORAGE) || ''
    } catch (e) {
      return ''
    }
  }

  /** @param {string} key */
  function writeKey(key) {
    try {
      if (key) localStorage.setItem(KEY_STORAGE, key)
      else localStorage.removeItem(KEY_STORAGE)
    } catch (e) {
      /* storage disabled: the key lives for this page only */
    }
  }

  /**
   * Builds an element; strings become text nodes, never markup.
   * @template {keyof HTMLElementTagNameMap} K
   * @param {K} tag
   * @param {Record<string, string | number | boolean | null | undefined> | null} [props]
   * @param {(Node | string | null | undefined)[]} [children]
   * @returns {HTMLElementTagNameMap[K]}
   */
  function el(tag, props, children) {
    var node = document.createElement(tag)
    if (props) {
      for (var name in props) {
        var value = props[name]
        if (value === null || value === undefined || value === false) continue
        if (name === 'class') node.className = String(value)
        else if (name === 'text') node.textContent = String(value)
        else node.setAttribute(name, value === true ? '' : String(value))
      }
    }
    if (children) {
      for (var i = 0; i < children.length; i++) {
        var child = children[i]
        if (child !== null && child !== undefined) node.append(child)
      }
    }
    return node
  }

  /**
   * @param {Node} node
   * @param {string} text
   */
  function setText(node, text) {
    if (node.textContent !== text) node.textContent = text
  }

  /** @param {string} iso */
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

  /** @param {string} iso */
  function absoluteTime(iso) {
    var date = new Date(iso)
    return isNaN(date.getTime()) ? iso : date.toLocaleString()
  }

  /**
   * @param {string} id
   * @param {string} [suffix]
   */
  function sessionPath(id, suffix) {
    return '/v1/sessions/' + encodeURIComponent(id) + (suffix || '')
  }

  /** @param {string} text */
  function quote(text) {
    var s = String(text)
    return '“' + (s.length > 80 ? s.slice(0, 79) + '…' : s) + '”'
  }

  var toastTimer = 0
  /** @param {string} text */
  function toast(text) {
    var node = $('toast')
    node.textContent = text
    clearTimeout(toastTimer)
    toastTimer = setTimeout(function () {
      node.textContent = ''
    }, 5000)
  }

  // ---- API and auth --------------------------------------------------------------------------

  /**
   * @param {Record<string, string>} [extra]
   * @returns {Record<string, string>}
   */
  function headers(extra) {
    /** @type {Record<string, string>} */
    var result = Object.assign({}, extra || {})
    if (app.key) result.Authorization = 'Bearer ' + app.key
    return result
  }

  /**
   * A JSON request to the service, with the key.
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body]
   * @param {Record<string, string>} [extra] - more headers
   * @returns {Promise<ApiResult<any>>}
   */
  async function api(method, path, body, extra) {
    var sent = headers(extra)
    /** @type {RequestInit} */
    var init = { method: method, headers: sent, cache: 'no-store' }
    if (body !== undefined) {
      init.body = JSON.stringify(body)
      sent['Content-Type'] = 'application/json'
    }
    var res
    try {
      res = await fetch(path, init)
    } catch (e) {
      return { status: 0, ok: false, data: null, headers: new Headers() }
    }
    var data = null
    if ((res.headers.get('content-type') || '').indexOf('json') >= 0) {
      try {
        data = await res.json()
      } catch (e) {
        data = null
      }
    }
    if (res.status === 401) needKey()
    return { status: res.status, ok: res.ok, data: data, headers: res.headers }
  }

  /** @param {ApiResult<object>} res - a failed request; its body, if any, a problem */
  function problemText(res) {
    if (res.status === 0) return 'The service is unreachable.'
    var problem = /** @type {Partial<ProblemDetails> | null} */ (res.data)
    if (problem && problem.detail) return problem.detail
    return 'HTTP ' + res.status
  }

  /**
   * @param {string} kind
   * @param {string} text
   */
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

  /** @param {string | null} reason */
  function openKeyDialog(reason) {
    var dialog = dialogOf('key-dialog')
    setText($('key-reason'), reason || 'Keys are sent as Authorization: Bearer <key>.')
    inputOf('key-input').value = app.key
    if (!dialog.open) dialog.showModal()
    inputOf('key-input').focus()
  }

  /** @param {string} key */
  function useKey(key) {
    app.key = key
    writeKey(key)
    app.role = null
    renderRole()
    restartStreams()
  }

  // the service says who the key is; with no key, an agent answer means open access
  async function detectRole() {
    /** @type {ApiResult<Whoami>} */
    var res = await api('GET', '/v1/whoami')
    if (res.ok && res.data && (res.data.role === 'agent' || res.data.role === 'viewer')) {
      app.role = res.data.role === 'agent' && !app.key ? 'open' : res.data.role
    } else {
      app.role = null
    }
    renderRole()
    renderDetail()
  }

  function canEdit() {
    return app.role === 'agent' || app.role === 'open'
  }

  function renderRole() {
    var node = $('role')
    /** @type {Record<Role, string>} */
    var labels = {
      agent: 'Agent key · can edit',
      viewer: 'Viewer key · read-only',
      open: 'Open access',
    }
    var label = app.role ? labels[app.role] : ''
    node.hidden = !label
    node.dataset.role = app.role || ''
    if (label) setText(node, label)
  }

  // ---- Server-Sent Events over fetch (EventSource cannot send Authorization) -----------------

  /**
   * Reads an event stream as the format defines it: lines end at CRLF, LF or a lone CR, a
   * leading BOM is dropped (TextDecoder does), `retry:` sets the reconnection delay.
   */
  /**
   * @param {ReadableStream<Uint8Array>} body
   * @param {(message: SseMessage) => void} onEvent
   * @param {() => void} onBytes
   * @param {(ms: number) => void} onRetry
   */
  async function readEvents(body, onEvent, onBytes, onRetry) {
    var reader = body.getReader()
    var decoder = new TextDecoder()
    var buffer = ''
    var type = ''
    /** @type {string[]} */
    var data = []
    /** @type {string | null} */
    var id = null
    for (;;) {
      var chunk = await reader.read()
      if (chunk.done) return
      onBytes()
      var text = buffer + decoder.decode(chunk.value, { stream: true })
      // a CR at the very end may be the first half of a CRLF: decide with the next chunk
      var held = text.charAt(text.length - 1) === '\r' ? '\r' : ''
      var lines = (held ? text.slice(0, -1) : text).split(/\r\n|\r|\n/)
      buffer = lines.pop() + held
      for (var i = 0; i < lines.length; i++) {
        var line = lines[i]
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
        else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value))
      }
    }
  }

  /**
   * A resilient event stream: reconnects with backoff; sends Last-Event-ID when the caller
   * knows one, else the server starts again with a snapshot.
   */
  /**
   * @typedef {{ lastId: () => string | null, close: () => void }} Stream
   * @param {string} path
   * @param {StreamHandlers} handlers
   * @returns {Stream}
   */
  function openStream(path, handlers) {
    /** @type {AbortController | null} */
    var controller = null
    var closed = false
    var delay = 1000
    // the server's `retry:` and Retry-After, when it sends them
    var serverRetry = 0
    var retryAfter = 0
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    var retryTimer
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    var watchdog
    /** @type {string | null} */
    var lastId = null

    function armWatchdog() {
      clearTimeout(watchdog)
      // heartbeats come every 15 s; silence this long means a dead connection
      watchdog = setTimeout(function () {
        if (controller) controller.abort()
      }, 45000)
    }

    function retry() {
      if (closed) return
      handlers.onStatus('reconnecting')
      retryTimer = setTimeout(connect, Math.max(delay, serverRetry, retryAfter))
      retryAfter = 0
      delay = Math.min(delay * 2, 15000)
    }

    async function connect() {
      if (closed) return
      controller = new AbortController()
      /** @type {Record<string, string>} */
      var extra = { Accept: 'text/event-stream' }
      var resume = handlers.resumeFrom ? handlers.resumeFrom() : null
      if (resume !== null && resume !== undefined) extra['Last-Event-ID'] = String(resume)
      var res
      try {
        res = await fetch(path, {
          headers: headers(extra),
          signal: controller.signal,
          cache: 'no-store',
        })
      } catch (e) {
        return retry()
      }
      if (res.status === 401) {
        handlers.onStatus('key')
        needKey()
        return
      }
      if (!res.ok || !res.body) {
        var data
        try {
          data = await res.json()
        } catch (e) {
          data = null
        }
        // 503 while an instance drains, 429 at the stream cap: both say when to come back
        retryAfter = (Number(res.headers.get('Retry-After')) || 0) * 1000
        if (handlers.onFail && handlers.onFail(res.status, data) === false) return
        return retry()
      }
      delay = 1000
      handlers.onStatus('live')
      armWatchdog()
      try {
        await readEvents(
          res.body,
          function (message) {
            if (message.id !== null) lastId = message.id
            var payload
            try {
              payload = JSON.parse(message.data)
            } catch (e) {
              return
            }
            handlers.onEvent(message.event, payload, message.id)
          },
          armWatchdog,
          function (ms) {
            serverRetry = ms
          }
        )
      } catch (e) {
        // aborted or the network dropped: reconnect below
      }
      clearTimeout(watchdog)
      retry()
    }

    connect()
    return {
      lastId: function () {
        return lastId
      },
      close: function () {
        closed = true
        clearTimeout(retryTimer)
        clearTimeout(watchdog)
        if (controller) controller.abort()
      },
    }
  }

  // ---- session model -------------------------------------------------------------------------

  // the server computes each session's state (waiting included); the page only names it
  /** @type {Record<string, string>} */
  var KIND_OF_STATE = { active: 'working' }

  /** @param {Shown} s */
  function kindOf(s) {
    return KIND_OF_STATE[s.state] || s.state
  }

  /**
   * Whether an observed agent (not rounds executed here) feeds the session.
   * @param {Shown} s
   */
  function isObserved(s) {
    return !!s.source && s.source !== 'rounds'
  }

  /** @param {Shown} s */
  function isClaude(s) {
    return s.source === 'claude-code' || s.source === 'claude-agent-sdk'
  }

  /** @param {Shown} s */
  function agentLabel(s) {
    return AGENT_LABEL[s.source] || s.source
  }

  /**
   * The agent has no todo tools at all (a summary's `todo_tools`, a view's `observed.todo_tools`).
   * @param {Shown} s
   */
  function todoToolsOff(s) {
    if ('observed' in s) return !!s.observed && s.observed.todo_tools === false
    return s.todo_tools === false
  }

  /** @param {Shown} s */
  function todoToolsText(s) {
    return isClaude(s) ? 'todo tools off (set ' + CLAUDE_TODO_TOOLS_ENV + '=1)' : 'todo tools off'
  }

  /** @param {Shown} s */
  function waitingText(s) {
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
  function sourceBadge(s) {
    if (!isObserved(s)) return null
    return el('span', {
      class: 'badge badge-source',
      'data-source': s.source,
      text: agentLabel(s),
      title: 'Observed: ' + agentLabel(s) + ' runs its own todo tool and reports it here',
    })
  }

  /** @param {Shown} s */
  function badOutcome(s) {
    return !!s.ended && s.ended.outcome !== 'completed'
  }

  /**
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
   * @param {Shown} s
   * @param {string} kind
   */
  function badges(s, kind) {
    var list = [stateBadge(s, kind)]
    // done, yet waiting (Claude idles at its prompt once its list is through)
    if (s.waiting && kind !== 'waiting' && kind !== 'ended')
      list.push(
        el('span', { class: 'badge badge-waiting', text: 'Waiting', title: waitingText(s) })
      )
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
          title:
            'The model has stopped updating its list: the next round reply carries the reminder',
        })
      )
    }
    return list
  }

  /**
   * @param {Progress} progress
   * @param {string} kind
   * @param {string} label
   */
  function progressBar(progress, kind, label) {
    var percent = progress.percent
    var fill = el('div', { class: 'bar-fill ' + kind })
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
   * @param {Shown} s
   * @param {string} kind
   */
  function currentCell(s, kind) {
    var waiting = s.waiting
      ? el('div', { class: 'sub waiting-text', title: waitingText(s), text: waitingText(s) })
      : null
    if (s.current) {
      var text = s.current.active_form || s.current.content
      return el('div', null, [
        el('div', { class: 'current', title: text }, [
          el('span', { class: 'spinner', 'aria-hidden': 'true' }),
          kind === 'ended' ? el('span', { class: 'item-prefix', text: 'stopped at ' }) : null,
          el('span', { class: 'current-text', text: text }),
        ]),
        waiting,
      ])
    }
    if (todoToolsOff(s))
      return el('div', null, [
        el('div', {
          class: 'current none notools',
          title: todoToolsText(s),
          text: todoToolsText(s),
        }),
        waiting,
      ])
    var none =
      s.progress.total === 0
        ? 'No items yet'
        : kind === 'done'
          ? 'All items done'
          : 'Nothing in progress'
    return el('div', null, [el('div', { class: 'current none', text: none }), waiting])
  }

  /**
   * Stores a session's summary (or view); an older version is ignored unless force (a snapshot).
   * @param {Shown} summary
   * @param {boolean} [force]
   */
  function upsert(summary, force) {
    var record = app.sessions.get(summary.session_id)
    if (!record) {
      record = { s: summary, row: null, kind: kindOf(summary), depth: 0 }
      app.sessions.set(summary.session_id, record)
    } else {
      if (!force && summary.version < record.s.version) return
      record.s = summary
    }
    markDirty(summary.session_id)
  }

  /** @param {string} id */
  function remove(id) {
    var record = app.sessions.get(id)
    if (!record) return
    if (record.row) record.row.remove()
    app.sessions.delete(id)
    markDirty(null)
  }

  /** @param {string | null} id */
  function markDirty(id) {
    if (id !== null) app.dirty.add(id)
    if (!app.frame) app.frame = requestAnimationFrame(flush)
  }

  /**
   * @param {SessionRecord} record
   * @returns {HTMLTableRowElement}
   */
  function buildRow(record) {
    var s = record.s
    var kind = kindOf(s)
    record.kind = kind
    var href = '#session=' + encodeURIComponent(s.session_id)
    var nested = record.depth > 0
    // an observed agent runs no rounds here: its round count says nothing
    var sub = isObserved(s)
      ? s.dialect + ' · v' + s.version
      : s.dialect + ' · round ' + s.round + ' · v' + s.version
    var row = el(
      'tr',
      {
        class:
          'state-' +
          kind +
          (badOutcome(s) ? ' outcome-bad' : '') +
          (nested ? ' subagent' : '') +
          (app.selected === s.session_id ? ' selected' : ''),
        'data-session-id': s.session_id,
        'data-state': kind,
        'data-version': s.version,
        'data-source': s.source,
        'data-parent': nested ? s.parent : null,
      },
      [
        el('td', { class: 'cell-session' }, [
          nested ? el('span', { class: 'nest', 'aria-hidden': 'true', text: '↳ ' }) : null,
          el('a', {
            class: 'sid',
            href: href,
            text: nested ? nestedId(s) : s.session_id,
            title: nested ? 'Subagent of ' + s.parent + ': ' + s.session_id : null,
            'aria-label': nested ? 'Subagent ' + s.session_id : null,
            'aria-current': app.selected === s.session_id ? 'true' : null,
          }),
          el('span', { class: 'sub' }, [sourceBadge(s), sub]),
        ]),
        el('td', { class: 'cell-progress' }, [
          progressBar(s.progress, kind, 'Progress of ' + s.session_id),
        ]),
        el('td', { class: 'cell-current' }, [currentCell(s, kind)]),
        el('td', { class: 'cell-state' }, [el('div', { class: 'badges' }, badges(s, kind))]),
        el('td', { class: 'cell-updated' }, [
          el('time', {
            datetime: s.updated_at,
            title: absoluteTime(s.updated_at),
            text: relativeTime(s.updated_at),
          }),
        ]),
      ]
    )
    if (nested) row.cells[0].style.paddingLeft = 12 + 20 * record.depth + 'px'
    if (record.row) record.row.replaceWith(row)
    record.row = row
    return row
  }

  /**
   * How a subagent listed under its main session reads: its id after the main session's
   * ("agent:…").
   * @param {{ session_id: string, parent: string | null }} s
   */
  function nestedId(s) {
    var prefix = s.parent + ':'
    return s.parent && s.session_id.indexOf(prefix) === 0
      ? s.session_id.slice(prefix.length)
      : s.session_id
  }

  /**
   * Records in listing order with each subagent right after its main session (depth 1, its own
   * subagents 2…); a subagent whose main session is not listed stays at the top level.
   * @param {SessionRecord[]} sorted - newest change first
   * @returns {{ record: SessionRecord, depth: number }[]}
   */
  function nestSubagents(sorted) {
    /** @type {Map<string, SessionRecord[]>} */
    var children = new Map()
    sorted.forEach(function (record) {
      var parent = record.s.parent
      if (parent && parent !== record.s.session_id && app.sessions.has(parent)) {
        var siblings = children.get(parent) || []
        siblings.push(record)
        children.set(parent, siblings)
      }
    })
    /** @type {{ record: SessionRecord, depth: number }[]} */
    var out = []
    /** @type {Set<string>} */
    var placed = new Set()
    /**
     * @param {SessionRecord} record
     * @param {number} depth
     */
    var place = function (record, depth) {
      if (placed.has(record.s.session_id)) return
      placed.add(record.s.session_id)
      out.push({ record: record, depth: depth })
      ;(children.get(record.s.session_id) || []).forEach(function (child) {
        place(child, depth + 1)
      })
    }
    sorted.forEach(function (record) {
      var parent = record.s.parent
      if (!parent || !app.sessions.has(parent)) place(record, 0)
    })
    // sessions that name each other as parents: nothing above them is listed
    sorted.forEach(function (record) {
      place(record, 0)
    })
    return out
  }

  /** @param {SessionRecord} record */
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
    var sorted = Array.from(app.sessions.values())
    sorted.sort(function (a, b) {
      var diff = Date.parse(b.s.updated_at) - Date.parse(a.s.updated_at)
      return diff !== 0 ? diff : a.s.session_id < b.s.session_id ? -1 : 1
    })
    var records = nestSubagents(sorted).map(function (placed) {
      // a subagent moves under its main session (or back) when that one comes or goes
      if (placed.record.depth !== placed.depth) {
        placed.record.depth = placed.depth
        buildRow(placed.record)
      }
      return placed.record
    })
    var tbody = $('rows')
    /** @type {Record<string, number>} */
    var counts = { all: records.length, working: 0, waiting: 0, stale: 0, ended: 0, done: 0 }
    var visible = 0
    for (var i = 0; i < records.length; i++) {
      var record = records[i]
      if (record.kind in counts) counts[record.kind]++
      var row = record.row || buildRow(record)
      row.hidden = !matches(record)
      if (!row.hidden) visible++
      if (tbody.children[i] !== row) tbody.insertBefore(row, tbody.children[i] || null)
    }
    for (var name in counts) setText($('count-' + name), String(counts[name]))
    var empty = $('empty')
    empty.hidden = visible > 0
    setText(
      empty,
      records.length === 0
        ? 'No sessions yet. A session appears here when its agent loop posts its first round, or an observed agent its first event.'
        : 'No session matches this filter.'
    )
  }

  // "last update" changes with time alone; states change on the server, which pushes them
  function tick() {
    app.sessions.forEach(function (record) {
      if (!record.row) return
      var time = record.row.querySelector('time')
      if (time) setText(time, relativeTime(record.s.updated_at))
    })
    if (detail.view && !detail.gone) setText($('detail-updated'), lastUpdateText(detail.view))
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
          /** @type {Set<string>} */
          var seen = new Set()
          for (var i = 0; i < data.sessions.length; i++) {
            var summary = data.sessions[i]
            seen.add(summary.session_id)
            upsert(summary, true)
          }
          Array.from(app.sessions.keys()).forEach(function (id) {
            if (!seen.has(id)) remove(id)
          })
        } else if (event === 'update') {
          upsert(data)
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

  /**
   * @typedef {object} Detail the open session
   * @property {string | null} id
   * @property {SessionView | null} view
   * @property {string | null} kind
   * @property {Stream | null} stream
   * @property {HistoryEntry[]} history
   * @property {ReturnType<typeof setTimeout> | undefined} historyTimer
   * @property {string | null} gone - why the session cannot be shown
   */
  /** @type {Detail} */
  var detail = {
    id: null,
    view: null,
    kind: null,
    stream: null,
    history: [],
    historyTimer: undefined,
    gone: null,
  }
  /**
   * @typedef {{ item: Item | null, id?: string, content: string, status: Item['status'] }} EditRow
   * @typedef {{ base: number, changedTo: number | null, saving: boolean, items: EditRow[] }} Edit
   */
  /** @type {Edit | null} */
  var edit = null

  function selectFromHash() {
    var match = /^#session=(.+)$/.exec(location.hash)
    /** @type {string | null} */
    var id = null
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

  /** @param {string | null} id */
  function markSelected(id) {
    var previous = app.selected
    app.selected = id
    if (previous) markDirty(previous)
    if (id) markDirty(id)
  }

  /** @param {string} id */
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
      resumeFrom: function () {
        return detail.view ? detail.view.version : null
      },
      onStatus: function () {},
      onFail: function (status) {
        if (status === 404) {
          detail.gone = 'No session ' + quote(id) + ' in this tenant.'
          renderDetail()
          return false
        }
      },
      onEvent: function (event, data) {
        if (event === 'delete') {
          detail.gone = 'This session was deleted.'
          if (detail.stream) detail.stream.close()
          renderDetail()
          return
        }
        if (detail.view && data.version < detail.view.version && event !== 'snapshot') return
        detail.view = data
        upsert(data)
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
    // the newest page (its entries oldest first) is what the panel shows
    /** @type {ApiResult<Schemas['History']>} */
    var res = await api('GET', sessionPath(id, '/history'))
    if (detail.id !== id || !res.ok || !res.data) return
    detail.history = res.data.entries
    renderHistory()
  }

  /**
   * @param {string | null} text
   * @param {'info' | 'error'} [kind]
   */
  function showMessage(text, kind) {
    var node = $('detail-message')
    node.hidden = !text
    node.className = 'message ' + (kind || 'info')
    node.setAttribute('role', kind === 'error' ? 'alert' : 'status')
    node.textContent = text || ''
  }

  /** @param {SessionView} view */
  function lastUpdateText(view) {
    return absoluteTime(view.updated_at) + ' (' + relativeTime(view.updated_at) + ')'
  }

  /**
   * A link that opens another session in this panel.
   * @param {string} id
   * @param {string} text
   */
  function sessionLink(id, text) {
    return el('a', { href: '#session=' + encodeURIComponent(id), title: id, text: text })
  }

  /**
   * What an observed agent adds: waiting for a person, no todo tools, a person's edit not yet
   * handed to the model.
   * @param {SessionView} view
   */
  function renderObserved(view) {
    var waiting = $('detail-waiting')
    waiting.hidden = !view.waiting
    if (view.waiting)
      waiting.replaceChildren(
        el('strong', { text: 'Waiting for a person' }),
        el('div', { class: 'item-sub' }, [
          'since ',
          el('time', {
            datetime: view.waiting.at,
            title: absoluteTime(view.waiting.at),
            text: new Date(view.waiting.at).toLocaleTimeString(),
          }),
          ' · ' + view.waiting.reason + (view.waiting.message ? ': ' + view.waiting.message : ''),
        ])
      )
    var notools = $('detail-notools')
    notools.hidden = !todoToolsOff(view)
    if (todoToolsOff(view))
      notools.replaceChildren(
        el('strong', { text: todoToolsText(view) }),
        el('div', {
          class: 'item-sub',
          text: isClaude(view)
            ? 'Claude Code offers its todo tools on current models only when ' +
              CLAUDE_TODO_TOOLS_ENV +
              '=1 is in its environment: without them there is no list to show.'
            : 'The agent has no todo tool: there is no list to show.',
        })
      )
    var pending = $('detail-pending')
    var edited = view.observed && view.observed.pending_edit
    pending.hidden = !edited
    if (edited)
      pending.replaceChildren(
        el('strong', { text: 'Edit pending delivery to the agent' }),
        el('div', {
          class: 'item-sub',
          text:
            'Made ' +
            relativeTime(edited.at) +
            '. ' +
            agentLabel(view) +
            ' gets it once, with the reply to its next todo tool call; the list below changes when the agent writes it.',
        }),
        el(
          'ol',
          { class: 'pending-items' },
          edited.items.map(function (item) {
            return el('li', { class: 'status-' + item.status }, [
              el('span', {
                class: 'mark',
                'aria-hidden': 'true',
                text: STATUS_MARK[item.status] || '?',
              }),
              el('span', { class: 'visually-hidden', text: STATUS_LABEL[item.status] + ': ' }),
              item.content,
            ])
          })
        )
      )
  }

  function renderDetailHeader() {
    var view = detail.view
    if (!view) return
    var s = view
    var kind = kindOf(view)
    detail.kind = kind
    var badgesNode = $('detail-badges')
    var source = sourceBadge(s)
    badgesNode.replaceChildren.apply(badgesNode, (source ? [source] : []).concat(badges(s, kind)))
    var progressNode = $('detail-progress')
    progressNode.replaceChildren(progressBar(view.progress, kind, 'Progress of ' + view.session_id))
    var p = view.progress
    /** @type {[string, string | Node, string?][]} */
    var meta = [
      [
        'Source',
        isObserved(view)
          ? agentLabel(view) + ' (observed: the agent runs its own todo tool)'
          : 'Rounds run here',
      ],
    ]
    if (view.parent) meta.push(['Subagent of', sessionLink(view.parent, view.parent)])
    var subagents = view.observed ? view.observed.subagents : []
    if (subagents.length) {
      var links = el('span', { class: 'subagents' })
      var main = view.session_id
      subagents.forEach(function (id, i) {
        if (i) links.append(', ')
        links.append(sessionLink(id, nestedId({ session_id: id, parent: main })))
      })
      meta.push(['Subagents', links])
    }
    meta.push(['Dialect', view.dialect], ['Version', String(view.version)])
    if (!isObserved(view))
      meta.push([
        'Round',
        view.round + ' (' + view.rounds_since_todo + ' since the list was last updated)',
      ])
    meta.push(
      [
        'Items',
        p.total +
          ' total · ' +
          p.completed +
          ' completed · ' +
          p.in_progress +
          ' in progress · ' +
          p.pending +
          ' pending' +
          (p.blocked ? ' · ' + p.blocked + ' blocked' : '') +
          (p.cancelled ? ' · ' + p.cancelled + ' cancelled' : ''),
      ],
      ['Created', absoluteTime(view.created_at)],
      ['Last update', lastUpdateText(view), 'detail-updated']
    )
    var dl = $('detail-meta')
    dl.replaceChildren()
    meta.forEach(function (row) {
      var value = row[1]
      dl.append(
        el('dt', { text: row[0] }),
        typeof value === 'string'
          ? el('dd', { text: value, id: row[2] || null })
          : el('dd', null, [value])
      )
    })
    renderObserved(view)
    var endedNode = $('detail-ended')
    endedNode.hidden = !view.ended
    if (view.ended) {
      var children = [
        el('strong', {
          text:
            (OUTCOME_LABEL[view.ended.outcome] || 'Ended') + ' · ' + absoluteTime(view.ended.at),
        }),
      ]
      if (view.ended.detail) children.push(el('div', { text: view.ended.detail }))
      if (view.ended.unfinished.length)
        children.push(
          el('div', {
            class: 'item-sub',
            text: 'Left unfinished: #' + view.ended.unfinished.join(', #'),
          })
        )
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
    var view = detail.view
    // the server says whether PUT takes an edit (an observed agent other than Claude owns its list)
    var editable = !!view && view.editable
    $('edit-button').hidden = !canEdit() || !editable || !!edit
    $('edit-readonly').hidden = canEdit() || app.role === null
    var owned = $('edit-owned')
    owned.hidden = !view || editable || !canEdit()
    if (view && !editable)
      setText(owned, 'Read-only: ' + agentLabel(view) + ' owns this list and writes it itself')
    renderItems()
    renderEditForm()
  }

  function renderItems() {
    var list = $('detail-items')
    list.hidden = !!edit
    list.replaceChildren()
    var items = detail.view ? detail.view.items : []
    if (!items.length) {
      list.append(
        el('li', { class: 'status-pending' }, [
          el('span', { class: 'mark', 'aria-hidden': 'true', text: '·' }),
          el('span', { class: 'text item-sub', text: 'The list is empty.' }),
        ])
      )
      return
    }
    items.forEach(function (item) {
      var textChildren = [
        el('span', { class: 'visually-hidden', text: STATUS_LABEL[item.status] + ': ' }),
        item.content,
      ]
      /** @type {string[]} */
      var sub = []
      if (item.status === 'in_progress' && item.active_form && item.active_form !== item.content)
        sub.push(item.active_form)
      sub.push('#' + item.id + ' · ' + STATUS_LABEL[item.status])
      if (item.owner) sub.push('owner ' + item.owner)
      if (item.blocked_by && item.blocked_by.length)
        sub.push('blocked by #' + item.blocked_by.join(', #'))
      textChildren.push(el('span', { class: 'item-sub', text: sub.join(' · ') }))
      list.append(
        el('li', { class: 'status-' + item.status, 'data-item-id': item.id }, [
          el('span', {
            class: 'mark',
            'aria-hidden': 'true',
            text: STATUS_MARK[item.status] || '?',
          }),
          el('span', { class: 'text' }, textChildren),
        ])
      )
    })
  }

  // ---- history -------------------------------------------------------------------------------

  /**
   * What changed between two versions of a list, as sentences.
   * @param {Item[]} before
   * @param {Item[]} after
   */
  function changes(before, after) {
    /** @type {string[]} */
    var lines = []
    /** @type {Map<string, Item>} */
    var previous = new Map()
    before.forEach(function (item) {
      previous.set(item.id, item)
    })
    /** @type {Set<string>} */
    var kept = new Set()
    after.forEach(function (item) {
      var old = previous.get(item.id)
      if (!old) {
        lines.push(
          'Added ' + quote(item.content) + ' (' + STATUS_LABEL[item.status].toLowerCase() + ')'
        )
        return
      }
      kept.add(item.id)
      if (old.content !== item.content)
        lines.push('Renamed ' + quote(old.content) + ' to ' + quote(item.content))
      if (old.status !== item.status) {
        lines.push(
          quote(item.content) +
            ': ' +
            STATUS_LABEL[old.status].toLowerCase() +
            ' → ' +
            STATUS_LABEL[item.status].toLowerCase()
        )
      }
    })
    before.forEach(function (item) {
      if (!kept.has(item.id)) lines.push('Removed ' + quote(item.content))
    })
    return lines
  }

  /**
   * @typedef {{ from: HistoryEntry, to: HistoryEntry, count: number, lines: string[], quiet: boolean }} HistoryGroup
   */
  /**
   * History entries as display groups: consecutive rounds that left the list alone are one.
   * @param {HistoryEntry[]} entries
   */
  function historyGroups(entries) {
    /** @type {HistoryGroup[]} */
    var groups = []
    for (var i = 0; i < entries.length; i++) {
      var entry = entries[i]
      var lines =
        i > 0
          ? changes(entries[i - 1].items, entry.items)
          : ['List of ' + entry.items.length + ' item' + (entry.items.length === 1 ? '' : 's')]
      var last = groups[groups.length - 1]
      if (!lines.length && entry.source === 'round' && last && last.quiet) {
        last.to = entry
        last.count++
        continue
      }
      groups.push({
        from: entry,
        to: entry,
        count: 1,
        lines: lines,
        quiet: !lines.length && entry.source === 'round',
      })
    }
    return groups
  }

  /**
   * What wrote a history entry: an observed agent's change reads as the agent's name, and a
   * person's edit of an observed list as sent to it (the list changes when the agent writes it).
   * @param {HistoryEntry} entry
   */
  function historySource(entry) {
    var view = detail.view
    if (view && isObserved(view)) {
      if (entry.source === 'ingest') return agentLabel(view)
      if (entry.source === 'put') return 'Edit sent to the agent'
    }
    return SOURCE_LABEL[entry.source] || entry.source
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
      var done = entry.items.filter(function (item) {
        return item.status === 'completed'
      }).length
      var lines = group.lines
      if (group.quiet)
        lines = [
          group.count === 1
            ? 'A round without a list change'
            : group.count + ' rounds without a list change',
        ]
      else if (!lines.length) lines = ['No list change']
      var shown = lines.slice(0, 6)
      if (lines.length > shown.length) shown.push('…and ' + (lines.length - shown.length) + ' more')
      var version =
        group.count > 1 ? 'v' + group.from.version + '–v' + group.to.version : 'v' + entry.version
      list.append(
        el('li', { class: 'src-' + entry.source + (group.quiet ? ' quiet' : '') }, [
          el('div', { class: 'h-head' }, [
            el('span', { class: 'h-version', text: version }),
            el('span', { class: 'h-source', text: historySource(entry) }),
            el('time', {
              datetime: entry.at,
              title: absoluteTime(entry.at),
              text: new Date(entry.at).toLocaleTimeString(),
            }),
            el('span', { class: 'item-sub', text: done + '/' + entry.items.length + ' completed' }),
          ]),
          el(
            'ul',
            null,
            shown.map(function (line) {
              return el('li', { text: line })
            })
          ),
        ])
      )
    }
  }

  // ---- editing -------------------------------------------------------------------------------

  function startEdit() {
    if (!detail.view || !canEdit() || !detail.view.editable) return
    // an edit not yet handed to the agent is where the next one starts
    var pending = detail.view.observed && detail.view.observed.pending_edit
    edit = {
      base: detail.view.version,
      changedTo: null,
      saving: false,
      items: (pending ? pending.items : detail.view.items).map(function (item) {
        return { item: item, content: item.content, status: item.status }
      }),
    }
    showMessage(null)
    renderDetail()
    var first = $('edit-list').querySelector('select, input')
    if (first instanceof HTMLElement) first.focus()
    else $('add-input').focus()
  }

  function cancelEdit() {
    edit = null
    renderDetail()
    $('edit-button').focus()
  }

  /** @param {Edit} edit */
  function nextItemId(edit) {
    var ids = edit.items.map(function (row) {
      return row.item ? row.item.id : row.id || ''
    })
    var numeric = ids.every(function (id) {
      return /^\d+$/.test(id)
    })
    if (numeric) {
      var max = ids.reduce(function (m, id) {
        return Math.max(m, Number(id))
      }, 0)
      if (detail.view)
        detail.view.items.forEach(function (item) {
          if (/^\d+$/.test(item.id)) max = Math.max(max, Number(item.id))
        })
      return String(max + 1)
    }
    var n = ids.length + 1
    while (ids.indexOf('item-' + n) >= 0) n++
    return 'item-' + n
  }

  function renderEditForm() {
    var form = $('edit-form')
    form.hidden = !edit
    const editing = edit
    if (!editing) return
    $('edit-observed').hidden = !detail.view || !isObserved(detail.view)
    var note = $('edit-note')
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
    var list = $('edit-list')
    list.replaceChildren()
    editing.items.forEach(function (row, index) {
      var n = index + 1
      var select = el('select', {
        'aria-label': 'Status of item ' + n,
        'data-index': index,
        class: 'edit-status',
      })
      STATUSES.forEach(function (status) {
        var option = el('option', { value: status, text: STATUS_LABEL[status] })
        if (status === row.status) option.selected = true
        select.append(option)
      })
      select.addEventListener('change', function () {
        row.status = /** @type {Item['status']} */ (select.value)
      })
      var input = el('input', {
        type: 'text',
        'aria-label': 'Text of item ' + n,
        class: 'edit-text',
        maxlength: 10000,
      })
      input.value = row.content
      input.addEventListener('input', function () {
        row.content = input.value
      })
      var removeButton = el('button', {
        type: 'button',
        class: 'btn small danger',
        'aria-label': 'Remove item ' + n,
        title: 'Remove',
        text: 'Remove',
      })
      removeButton.addEventListener('click', function () {
        editing.items.splice(index, 1)
        renderEditForm()
      })
      list.append(
        el('div', { class: 'edit-row', 'data-item-id': row.item ? row.item.id : row.id }, [
          select,
          input,
          removeButton,
        ])
      )
    })
    var saveButton = /** @type {HTMLButtonElement} */ ($('save-button'))
    saveButton.disabled = editing.saving
  }

  function addItem() {
    var input = inputOf('add-input')
    var text = input.value.trim()
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
    return edit.items.map(function (row) {
      if (!row.item)
        return {
          id: row.id || '',
          content: row.content,
          status: row.status,
          blocks: [],
          blocked_by: [],
        }
      var item = Object.assign({}, row.item, { content: row.content, status: row.status })
      // a renamed item's active form would describe the old text; the dialect derives a new one
      if (row.content !== row.item.content) delete item.active_form
      return item
    })
  }

  async function saveEdit() {
    var id = detail.id
    if (!edit || edit.saving || !id) return
    edit.saving = true
    renderEditForm()
    /** @type {ApiResult<SessionView>} */
    var res = await api(
      'PUT',
      sessionPath(id, '/todos'),
      { items: editedItems(edit) },
      { 'If-Match': '"' + edit.base + '"' }
    )
    if (detail.id !== id || !edit) return
    edit.saving = false
    if (res.ok && res.data) {
      edit = null
      detail.view = res.data
      upsert(res.data)
      renderDetail()
      scheduleHistory()
      if (isObserved(res.data)) {
        showMessage(
          'Sent as version ' +
            res.data.version +
            ': the edit is pending delivery to the agent, which gets it with the reply to its next todo tool call.',
          'info'
        )
        toast('Edit of ' + id + ' sent to the agent')
        return
      }
      showMessage(
        'Saved as version ' +
          res.data.version +
          '. The agent is told of the change with its next round.',
        'info'
      )
      toast('List of ' + id + ' saved')
      return
    }
    if (res.status === 412) {
      edit = null
      /** @type {ApiResult<SessionView>} */
      var fresh = await api('GET', sessionPath(id))
      var reloaded = fresh.ok ? fresh.data : null
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
      return
    }
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

  document.querySelectorAll('button.filter').forEach(function (node) {
    var button = /** @type {HTMLButtonElement} */ (node)
    button.addEventListener('click', function () {
      app.filter = button.dataset.filter || 'all'
      document.querySelectorAll('.filter').forEach(function (other) {
        other.setAttribute('aria-pressed', other === button ? 'true' : 'false')
      })
      markDirty(null)
    })
  })
  $('search').addEventListener('input', function () {
    app.search = inputOf('search').value.trim().toLowerCase()
    markDirty(null)
  })
  $('rows').addEventListener('click', function (event) {
    var target = event.target
    if (!(target instanceof Element)) return
    var row = target.closest('tr')
    if (!row || target.closest('a') || !row.dataset.sessionId) return
    location.hash = 'session=' + encodeURIComponent(row.dataset.sessionId)
  })
  window.addEventListener('hashchange', selectFromHash)
  $('detail-close').addEventListener('click', function () {
    history.pushState(null, '', location.pathname + location.search)
    closeDetail()
  })
  document.addEventListener('keydown', function (event) {
    if (event.key === 'Escape' && detail.id && !edit && !dialogOf('key-dialog').open)
      $('detail-close').click()
  })
  $('edit-button').addEventListener('click', startEdit)
  $('cancel-button').addEventListener('click', cancelEdit)
  $('add-button').addEventListener('click', addItem)
  $('add-input').addEventListener('keydown', function (event) {
    if (event.key === 'Enter') {
      event.preventDefault()
      addItem()
    }
  })
  $('edit-form').addEventListener('submit', function (event) {
    event.preventDefault()
    saveEdit()
  })
  $('key-button').addEventListener('click', function () {
    openKeyDialog(null)
  })
  $('key-form').addEventListener('submit', function (event) {
    event.preventDefault()
    var key = inputOf('key-input').value.trim()
    dialogOf('key-dialog').close()
    useKey(key)
  })
  $('key-clear').addEventListener('click', function () {
    dialogOf('key-dialog').close()
    useKey('')
    toast('Key forgotten')
  })
  $('key-cancel').addEventListener('click', function () {
    dialogOf('key-dialog').close()
  })

  startTenantStream()
  detectRole()
  selectFromHash()
  setInterval(tick, 1000)
})()
