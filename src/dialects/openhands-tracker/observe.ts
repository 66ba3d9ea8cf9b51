/**
 * @module dialects/openhands-tracker/observe
 * OpenHands' `task_tracker`, observed (`OpenHands/software-agent-sdk`
 * `openhands-tools/openhands/tools/task_tracker/definition.py`): the observation's
 * `task_list` is the list after the call (`plan` wrote it, `view` shows it: both resync); the
 * action's list stands in when an observation carries none. The released tool's items carry no
 * ids: identity is kept by matching (id, then content, then position), as the dialect does.
 */
import type { NewItem } from '../list-rewrite.js'
import { canonicalStatus } from '../observe/types.js'
import { entriesWith, rewritten, wholeListObserver } from '../observe/whole-list.js'

function taskItems(value: unknown): NewItem[] | undefined {
  return entriesWith(value, 'title', (task, title) => {
    const id = typeof task.id === 'string' && task.id !== '' ? task.id : undefined
    const notes = typeof task.notes === 'string' && task.notes !== '' ? task.notes : undefined
    return {
      ...(id ? { id } : {}),
      content: title,
      status: canonicalStatus(task.status ?? 'todo') ?? 'pending',
      ...(notes ? { notes } : {}),
    }
  })
}

/** The `openhands-tracker` observer. */
export const openhandsTrackerObserver = wholeListObserver({
  dialect: 'openhands-tracker',
  tool: 'task_tracker',
  listOf: (observation, action) => {
    const command = observation?.command ?? action?.command ?? 'view'
    return (
      taskItems(observation?.task_list) ??
      (command === 'plan' ? taskItems(action?.task_list ?? []) : undefined)
    )
  },
  noList: 'no task list',
  write: rewritten,
})
