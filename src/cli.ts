#!/usr/bin/env node
/**
 * @module cli
 * The `agent-todos` executable (package.json `bin`): `agent-todos watch [session]`,
 * `agent-todos observe -- <command…>`.
 */
import { runCli } from './cli/main.js'

const controller = new AbortController()
const stop = () => controller.abort()
process.once('SIGINT', stop)
process.once('SIGTERM', stop)

runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
}).then(
  (code) => {
    process.exitCode = code
    // open sockets or timers must not keep a finished watch alive
    setTimeout(() => process.exit(code), 200).unref()
  },
  (error: unknown) => {
    console.error(`agent-todos: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  }
)
