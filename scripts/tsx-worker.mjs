// Starts a worker thread's TypeScript module from the sources (the tests, `npm run dev`). tsx's
// loader hooks do not reach worker threads on Node 20 (nodejs/node#47747: a .ts entry fails with
// ERR_UNKNOWN_FILE_EXTENSION whatever the execArgv), so the thread registers tsx itself and then
// imports the module named by `workerData.tsEntry`. The compiled service (dist/) never uses this.
import { workerData } from 'node:worker_threads'
import { register } from 'tsx/esm/api'

register()
await import(workerData.tsEntry)
