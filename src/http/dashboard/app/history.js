// @ts-check
/**
 * @module dashboard/history
 * The open session's history: each kept version with what changed, as sentences.
 */
import { api, sessionPath } from './api.js'
import { $, el } from './dom.js'
import { absoluteTime, quote } from './format.js'
import { SOURCE_LABEL, STATUS_LABEL } from './labels.js'
import { agentLabel, isObserved } from './session.js'
import { detail } from './state.js'

/** @typedef {import('./types.js').Schemas} Schemas */
/** @typedef {import('./types.js').Item} Item */
/** @typedef {import('./types.js').HistoryEntry} HistoryEntry */
/**
 * @template T
 * @typedef {import('./types.js').ApiResult<T>} ApiResult
 */
/**
 * @typedef {{ from: HistoryEntry, to: HistoryEntry, count: number, lines: string[], quiet: boolean }} HistoryGroup
 */

/** The most lines of change an entry shows. */
const MAX_LINES = 6

/**
 * What changed between two versions of a list, as sentences.
 * @param {Item[]} before
 * @param {Item[]} after
 */
function changes(before, after) {
  /** @type {string[]} */
  const lines = []
  /** @type {Map<string, Item>} */
  const previous = new Map(before.map((item) => [item.id, item]))
  /** @type {Set<string>} */
  const kept = new Set()
  for (const item of after) {
    const old = previous.get(item.id)
    if (!old) {
      lines.push(
        'Added ' + quote(item.content) + ' (' + STATUS_LABEL[item.status].toLowerCase() + ')'
      )
      continue
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
  }
  for (const item of before) if (!kept.has(item.id)) lines.push('Removed ' + quote(item.content))
  return lines
}

/**
 * History entries as display groups: consecutive rounds that left the list alone are one.
 * @param {HistoryEntry[]} entries
 */
function historyGroups(entries) {
  /** @type {HistoryGroup[]} */
  const groups = []
  entries.forEach((entry, i) => {
    const lines =
      i > 0
        ? changes(entries[i - 1].items, entry.items)
        : ['List of ' + entry.items.length + ' item' + (entry.items.length === 1 ? '' : 's')]
    const last = groups[groups.length - 1]
    if (!lines.length && entry.source === 'round' && last && last.quiet) {
      last.to = entry
      last.count++
      return
    }
    groups.push({
      from: entry,
      to: entry,
      count: 1,
      lines,
      quiet: !lines.length && entry.source === 'round',
    })
  })
  return groups
}

/**
 * What wrote a history entry: an observed agent's change reads as the agent's name, and a
 * person's edit of an observed list as sent to it (the list changes when the agent writes it).
 * @param {HistoryEntry} entry
 */
function historySource(entry) {
  const view = detail.view
  if (view && isObserved(view)) {
    if (entry.source === 'ingest') return agentLabel(view)
    if (entry.source === 'put') return 'Edit sent to the agent'
  }
  return SOURCE_LABEL[entry.source] || entry.source
}

/**
 * A group's lines as shown: a quiet group says how many rounds, and the rest is cut short.
 * @param {HistoryGroup} group
 */
function shownLines(group) {
  let lines = group.lines
  if (group.quiet)
    lines = [
      group.count === 1
        ? 'A round without a list change'
        : group.count + ' rounds without a list change',
    ]
  else if (!lines.length) lines = ['No list change']
  const shown = lines.slice(0, MAX_LINES)
  if (lines.length > shown.length) shown.push('…and ' + (lines.length - shown.length) + ' more')
  return shown
}

/**
 * One group's entry: its version(s), source, time and completed count, then its lines.
 * @param {HistoryGroup} group
 */
function historyItem(group) {
  const entry = group.to
  const done = entry.items.filter((item) => item.status === 'completed').length
  const version =
    group.count > 1 ? 'v' + group.from.version + '–v' + group.to.version : 'v' + entry.version
  return el('li', { class: 'src-' + entry.source + (group.quiet ? ' quiet' : '') }, [
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
      shownLines(group).map((line) => el('li', { text: line }))
    ),
  ])
}

/** The history list, newest first. */
function renderHistory() {
  const list = $('detail-history')
  list.replaceChildren()
  if (!detail.history.length) {
    list.append(el('li', { class: 'item-sub', text: 'No history kept yet.' }))
    return
  }
  list.append(...historyGroups(detail.history).reverse().map(historyItem))
}

/** Reads the open session's history and shows it. */
async function loadHistory() {
  const id = detail.id
  if (!id) return
  // the newest page (its entries oldest first) is what the panel shows
  /** @type {ApiResult<Schemas['History']>} */
  const res = await api('GET', sessionPath(id, '/history'))
  if (detail.id !== id || !res.ok || !res.data) return
  detail.history = res.data.entries
  renderHistory()
}

/** Reads the history again shortly: changes come in bursts. */
export function scheduleHistory() {
  clearTimeout(detail.historyTimer)
  detail.historyTimer = setTimeout(loadHistory, 150)
}
