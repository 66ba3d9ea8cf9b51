import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MAX_BODY_DEPTH } from '../../src/core/limits.js'
import { IngestFormatError } from '../../src/ingest/events.js'
import { parseBody } from '../../src/ingest/body.js'

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth)
const objects = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1)

describe('ingest body', () => {
  it('Should accept a body nested exactly MAX_BODY_DEPTH levels, as JSON and as NDJSON lines', () => {
    assert.equal(parseBody(nested(MAX_BODY_DEPTH)).kind, 'json')
    assert.equal(parseBody(objects(MAX_BODY_DEPTH)).kind, 'json')
    const lines = parseBody(`${nested(MAX_BODY_DEPTH)}\n\n${objects(MAX_BODY_DEPTH)}\n`)
    assert.equal(lines.kind, 'ndjson')
    assert.equal(lines.kind === 'ndjson' && lines.values.length, 2)
  })

  it('Should refuse a body one level deeper, whichever value or line holds it', () => {
    for (const text of [
      nested(MAX_BODY_DEPTH + 1),
      objects(MAX_BODY_DEPTH + 1),
      `{"ok":1}\n${nested(MAX_BODY_DEPTH + 1)}`,
      `{"a":[${objects(MAX_BODY_DEPTH)}]}`,
    ]) {
      assert.throws(
        () => parseBody(text),
        (error: unknown) =>
          error instanceof IngestFormatError && /nests deeper than 512 levels/.test(error.message)
      )
    }
  })

  it('Should not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ s: '['.repeat(2000) + '\\"' + '{'.repeat(2000) })
    assert.equal(parseBody(text).kind, 'json')
    const lines = `${text}\n${JSON.stringify(['"]]]'.repeat(600)])}`
    assert.equal(parseBody(lines).kind, 'ndjson')
  })
})
