/**
 * @module dialects/openhands-tracker/observe
 * OpenHands' `task_tracker`, observed (`OpenHands/software-agent-sdk`
 * `openhands-tools/openhands/tools/task_tracker/definition.py`): the observation's
 * `task_list` is the list after the call (`plan` wrote it, `view` shows it: both resync); the
 * action's list stands in when an observation carries none. The released tool's items carry no
 * ids: identity is kept by matching (id, then content, then position), as the dialect does.
 */
import { isRecord } from '../json.js'
import { rewriteList, type NewItem } from '../list-rewrite.js'
import { canonicalStatus, notApplied, type Observer } from '../observe/types.js'

function taskItems(value: unknown): NewItem[] | undefined {
  if (!Array.isArray(value)) return undefined
  const items: NewItem[] = []
  for (const task of value as unknown[]) {
    if (!isRecord(task) || typeof task.title !== 'string') return undefined
    const id = typeof task.id === 'string' && task.id !== '' ? task.id : undefined
    const notes = typeof task.notes === 'string' && task.notes !== '' ? task.notes : undefined
    items.push({
      ...(id ? { id } : {}),
      content: task.title,
      status: canonicalStatus(task.status ?? 'todo') ?? 'pending',
      ...(notes ? { notes } : {}),
    })
  }
  return items
}

/** The `openhands-tracker` observer. */
export const openhandsTrackerObserver: Observer = {
  dialect: 'openhands-tracker',
  tools: ['task_tracker'],
  observe(call, result, state) {
    if (result.is_error) return notApplied('the call failed')
    const observation = isRecord(result.structured) ? result.structured : undefined
    const action = isRecord(call.input) ? call.input : undefined
    const command = observation?.command ?? action?.command ?? 'view'
    const tasks =
      taskItems(observation?.task_list) ??
      (command === 'plan' ? taskItems(action?.task_list ?? []) : undefined)
    if (!tasks) return notApplied('no task list')
    return { applied: true, state: rewriteList(state, tasks).state }
  },
}
