// @ts-check
/**
 * @module dashboard/state
 * What the page holds: the key, the sessions listed, the filter, and the open session with its
 * edit. One object each, shared by the modules that read and change them.
 */

/** @typedef {import('./types.js').Role} Role */
/** @typedef {import('./types.js').SessionRecord} SessionRecord */
/** @typedef {import('./types.js').SessionView} SessionView */
/** @typedef {import('./types.js').HistoryEntry} HistoryEntry */
/** @typedef {import('./types.js').Stream} Stream */
/** @typedef {import('./types.js').Edit} Edit */

const KEY_STORAGE = 'agent-todos.key'

/** The key kept in this browser, or ''. */
function storedKey() {
  try {
    return localStorage.getItem(KEY_STORAGE) || ''
  } catch (e) {
    return ''
  }
}

/**
 * Keeps the key in this browser ('' forgets it).
 * @param {string} key
 */
export function storeKey(key) {
  try {
    if (key) localStorage.setItem(KEY_STORAGE, key)
    else localStorage.removeItem(KEY_STORAGE)
  } catch (e) {
    /* storage disabled: the key lives for this page only */
  }
}

/** The page: its key and what the key may do, the sessions table and its filter. */
export const app = {
  key: storedKey(),
  /** @type {Role | null} */
  role: null,
  /** @type {Map<string, SessionRecord>} */
  sessions: new Map(),
  /**
   * Sessions whose rows are to be built again on the next frame.
   * @type {Set<string>}
   */
  dirty: new Set(),
  filter: 'all',
  search: '',
  /**
   * The origin filters: '' for any.
   * @type {Record<string, string>}
   */
  origin: { user: '', host: '', repo: '', agent: '' },
  /** @type {Stream | null} */
  tenantStream: null,
  frame: 0,
  /** @type {string | null} */
  selected: null,
  /** @type {{ user: string, csrf: string } | null} the signed-in person (SPEC People) */
  person: null,
  /** @type {'mine' | 'everyone'} whose sessions the listing shows */
  view: 'everyone',
}

/**
 * @typedef {object} Detail the open session
 * @property {string | null} id
 * @property {SessionView | null} view
 * @property {string | null} kind
 * @property {Stream | null} stream
 * @property {HistoryEntry[]} history
 * @property {ReturnType<typeof setTimeout> | undefined} historyTimer
 * @property {string | null} gone - why the session cannot be shown
 * @property {Edit | null} edit - the edit under way
 */

/** @type {Detail} */
export const detail = {
  id: null,
  view: null,
  kind: null,
  stream: null,
  history: [],
  historyTimer: undefined,
  gone: null,
  edit: null,
}
