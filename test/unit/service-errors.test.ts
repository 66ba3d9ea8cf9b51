import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  docsAnchor,
  ERROR_CATALOG,
  ERROR_CODES,
  ERRORS_DOC,
  ServiceError,
  STATUS_TITLES,
} from '../../src/service/errors.js'

/** GitHub's anchor of a markdown heading. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-')

describe('The error catalog', () => {
  const doc = readFileSync(new URL(`../../${ERRORS_DOC}`, import.meta.url), 'utf8')
  const headings = [...doc.matchAll(/^### (.+)$/gm)].map((m) => anchorOf(m[1]))

  it('Should document every code under its own heading of docs/errors.md', () => {
    for (const code of ERROR_CODES) {
      const anchor = docsAnchor(code).split('#')[1]
      assert.ok(headings.includes(anchor), `${code}: no heading ${anchor} in ${ERRORS_DOC}`)
    }
  })

  it('Should document only codes of the catalog, each once', () => {
    assert.deepEqual([...headings].sort(), [...ERROR_CODES].sort())
  })

  it("Should give each code a status's title, and a ServiceError the code's status", () => {
    for (const code of ERROR_CODES) {
      const { status, title } = ERROR_CATALOG[code]
      assert.equal(title, STATUS_TITLES[status], code)
      assert.equal(new ServiceError(code, 'x').status, status, code)
    }
  })
})
