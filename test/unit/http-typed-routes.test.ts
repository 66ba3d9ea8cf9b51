import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { endSessionRoute } from '../../src/http/routes/sessions/end.js'
import { listSessionsRoute } from '../../src/http/routes/sessions/list.js'
import {
  emptyResponse,
  jsonResponse,
  jsonText,
  serialised,
  type AppRouteHandler,
} from '../../src/http/typed-response.js'

// Type-level: `tsc --noEmit` (npm run typecheck) fails when a handler answers what its route
// does not declare; these handlers are never run.
export const answersItsRoute: AppRouteHandler<typeof listSessionsRoute> = (c) =>
  c.req.valid('query').limit > 1
    ? jsonResponse(c, jsonText({ sessions: [], next_cursor: null }), 200)
    : emptyResponse(c, 304)

export const answersAnotherShape: AppRouteHandler<typeof listSessionsRoute> = (c) =>
  // @ts-expect-error a listing's handler cannot answer another shape
  jsonResponse(c, jsonText({ entries: ['x'] }), 200)

export const answersAnotherStatus: AppRouteHandler<typeof endSessionRoute> = (c) =>
  // @ts-expect-error nor a status its route does not declare
  emptyResponse(c, 304)

export const answersUntypedText: AppRouteHandler<typeof listSessionsRoute> = (c) =>
  // @ts-expect-error nor untyped text, even where a response without content is declared
  c.body('{}', 200)

describe('http/typed-response', () => {
  it('Should keep the serialised text and send it as JSON', () => {
    const text = jsonText({ sessions: [], next_cursor: null })
    assert.equal(text, '{"sessions":[],"next_cursor":null}')
    assert.equal(serialised<{ a: number }>('{"a":1}'), '{"a":1}')
  })
})
