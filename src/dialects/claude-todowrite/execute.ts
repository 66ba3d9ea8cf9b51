/**
 * @module dialects/claude-todowrite/execute
 * What a TodoWrite call does to the list and answers, as Claude Code 2.1.332 does it; the list as
 * the reminder shows it.
 */
import { reconcileIds } from '../../core/reconcile-ids.js'
import { droppedItems, makeItem, type Item } from '../../core/items.js'
import {
  inputValidationError,
  operatorListRefusal,
  parseStringified,
  systemReminder,
} from '../claude-shared.js'
import { isRecord } from '../json.js'
import type { CallOutcome, DialectState, ListCheck } from '../types.js'
import { nextIdOf, renderNumbered } from '../list-rewrite.js'
import { refused } from '../outcome.js'
import { OperatorTodo, TodoWriteInput, type Todo } from './schema.js'
import { REMINDER, TODO_WRITE_RESULT } from './texts.js'

/** A stored item as Claude Code holds a todo; an operator's item may lack an active form. */
function toTodo(item: Item): Todo {
  return {
    content: item.content,
    status: item.status as Todo['status'],
    activeForm: item.active_form ?? item.content,
  }
}

/** Lenient where the native is: a list sent as a JSON string is parsed. */
function repairInput(input: unknown): unknown {
  if (!isRecord(input) || !('todos' in input)) return input
  return { ...input, todos: parseStringified(input.todos) }
}

/**
 * Whether Claude Code has cleared this list: every item completed, so its own store holds `[]`.
 * @param items - the session's list
 */
export function todoWriteCleared(items: readonly Item[]): boolean {
  return items.length > 0 && items.every((item) => item.status === 'completed')
}

/** The dialect's `apply`: one call checked, applied to the list, answered as the native does. */
export function applyTodoWrite(state: DialectState, input: unknown): CallOutcome {
  const parsed = TodoWriteInput.safeParse(repairInput(input))
  if (!parsed.success) {
    return refused(state, inputValidationError('TodoWrite', parsed.error))
  }
  const { todos } = parsed.data
  const cleared = todoWriteCleared(state.items)
  const { ids, nextId } = reconcileIds(state.items, todos, nextIdOf(state.data), {
    byPosition: !cleared,
  })
  const before = new Map(state.items.map((item) => [item.id, item]))
  // a matched item keeps what TodoWrite cannot express (an operator's notes, owner, …)
  const written = todos.map((todo, i) => ({
    ...(before.get(ids[i]) ?? makeItem({ id: ids[i], content: todo.content, status: todo.status })),
    content: todo.content,
    status: todo.status,
    active_form: todo.activeForm,
  }))
  return {
    result: {
      is_error: false,
      content: TODO_WRITE_RESULT,
      structured: { oldTodos: cleared ? [] : state.items.map(toTodo), newTodos: todos },
    },
    state: { items: written, data: { ...state.data, next_id: nextId } },
    dropped: droppedItems(state.items, written),
  }
}

/**
 * Claude Code's `todo_reminder` attachment: the nag plus the current list, numbered from 1,
 * inside `<system-reminder>`.
 * @param items - the current list
 */
export function todoWriteReminder(items: readonly Item[]): string {
  const list = todoWriteCleared(items) ? '' : renderNumbered(items, '')
  const text =
    list.length > 0
      ? `${REMINDER}\n\nHere are the existing contents of your todo list:\n\n[${list}]`
      : REMINDER
  return systemReminder(text)
}

/**
 * The list in the reminder's numbered form, one `N. [status] content` line per item.
 * @param items - the list
 */
export function renderTodoWrite(items: readonly Item[]): string {
  return renderNumbered(items, 'The todo list is empty.')
}

/** The dialect's `checkList`: an operator's canonical list checked against the native's rules. */
export function checkList(items: readonly Item[]): ListCheck {
  const todos = items.map((item) => ({
    content: item.content,
    status: item.status,
    activeForm: item.active_form,
  }))
  const refusal = operatorListRefusal('todo', OperatorTodo, todos, items)
  if (refusal !== undefined) return { ok: false, message: refusal }
  return {
    ok: true,
    items: items.map((item) => ({ ...item, active_form: item.active_form ?? item.content })),
  }
}
