/**
 * @module dialects/opencode-todos/observe
 * opencode's (and Kilo's) `todowrite`, observed: a full snapshot of the list each time, from the
 * server's `todo.updated {sessionID, todos}` event or a `tool_use` line of `opencode run --format
 * json` (`state.metadata.todos`, else `state.input.todos`). Todos have no ids: identity is kept by
 * content, then position. Any status word is taken as opencode stores it (`writeTodos`: the four
 * known ones as they are, others pending with the word in `metadata.status`).
 *
 * Snapshots can arrive out of order (a plugin's retried batch, a stream read again after a
 * reconnect): each carries `seq`, the time-and-counter part of opencode's ascending event (or part)
 * id, and a snapshot older than the one the list was built from is not applied. Snapshots without
 * one (a body that carries no id) apply in the order they come.
 */
import { notApplied } from '../observe/types.js'
import { entriesWith, wholeListObserver } from '../observe/whole-list.js'
import { writeTodos } from './execute.js'
import { DEFAULT_PRIORITY, type OpencodeTodo } from './schema.js'

/** The key of the dialect state that holds the newest snapshot's `seq`. */
const SEQ_KEY = 'snapshot_seq'

/**
 * The todos of a snapshot, leniently: a list (or its JSON text, as Kilo takes it) of objects with a
 * string `content`; a missing status is pending, a missing priority the default.
 */
function todosOf(value: unknown): OpencodeTodo[] | undefined {
  let list = value
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list)
    } catch {
      return undefined
    }
  }
  return entriesWith(list, 'content', (todo, content) => ({
    content,
    status: typeof todo.status === 'string' ? todo.status : 'pending',
    priority: typeof todo.priority === 'string' ? todo.priority : DEFAULT_PRIORITY,
  }))
}

/** The `opencode-todos` observer. */
export const opencodeTodosObserver = wholeListObserver({
  dialect: 'opencode-todos',
  tool: 'todowrite',
  listOf: (structured, input) => todosOf(structured?.todos) ?? todosOf(input?.todos),
  write(state, todos, structured) {
    const seq = typeof structured?.seq === 'string' ? structured.seq : undefined
    const last = state.data[SEQ_KEY]
    if (seq !== undefined && typeof last === 'string' && seq < last) {
      return notApplied('an older snapshot than the one the list was built from')
    }
    const next = writeTodos(state, todos).state
    return {
      applied: true,
      state: seq === undefined ? next : { ...next, data: { ...next.data, [SEQ_KEY]: seq } },
    }
  },
})
