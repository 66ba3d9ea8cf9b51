/**
 * @module dialects/copilot-todos/replay-worker
 * The thread that replays Copilot's `sql` queries on its private copy of the two tables
 * (`replayer.ts` starts it and says why): one job at a time, `{id, tables, query, limit}` in,
 * `{id, outcome}` out. A job that throws (it should not) answers a refused call. It says
 * `{ready: true}` once its copy is made, and the replayer's deadlines start from then (a thread
 * starting up, through tsx from the sources, takes longer than a replay).
 */
import { parentPort } from 'node:worker_threads'
import { replayTodoQuery, type ReplayOutcome } from './sql.js'
import type { ReplayRequest, ReplayResponse } from './replayer.js'

// JSON text both ways: a string is cloned to the other thread as one copy, where an object is
// walked by the structured clone (about half the round trip's CPU, measured)
parentPort!.on('message', (text: string) => {
  const request = JSON.parse(text) as ReplayRequest
  let outcome: ReplayOutcome
  try {
    outcome = replayTodoQuery(request.tables, request.query, request.limit)
  } catch (error) {
    const reason = `the replay failed: ${(error as Error).message}`
    outcome = {
      tables: request.tables,
      ran: 0,
      skipped: [{ statement: 0, reason }],
      refused: reason,
    }
  }
  const response: ReplayResponse = { id: request.id, outcome }
  parentPort!.postMessage(JSON.stringify(response))
})

// the copy is made on first use: made now, before the first job's deadline runs
replayTodoQuery({ todos: [], deps: [] }, '')
parentPort!.postMessage({ ready: true })
