#!/usr/bin/env node
// A stand-in agent command for the `observe` unit tests: prints canned output, then exits.
//   fake-agent.mjs [--file lines.ndjson] [--raw text] [--stderr text] [--exit n] [--hang]
//                  [--pace ms]
// --file prints a file as it is; --raw prints a JSON-encoded string as it is (no newline added);
// --pace waits between lines; --hang waits after printing until a signal ends it.
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    raw: { type: 'string' },
    stderr: { type: 'string' },
    exit: { type: 'string', default: '0' },
    hang: { type: 'boolean', default: false },
    pace: { type: 'string', default: '0' },
  },
})

const write = (stream, text) => new Promise((resolve) => stream.write(text, resolve))
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

if (values.stderr) await write(process.stderr, values.stderr)
let text = values.file ? readFileSync(values.file, 'utf8') : ''
if (values.raw) text += JSON.parse(values.raw)
const pace = Number(values.pace)
if (pace > 0) {
  for (const line of text.split(/(?<=\n)/)) {
    await write(process.stdout, line)
    await sleep(pace)
  }
} else await write(process.stdout, text)
if (values.hang) setInterval(() => {}, 1000)
else process.exitCode = Number(values.exit)
