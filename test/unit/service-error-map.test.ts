import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { DialectConflictError } from '../../src/dialects/round.js'
import { toServiceError } from '../../src/service/error-map.js'
import { ServiceError } from '../../src/service/errors.js'
import {
  ConflictRetryError,
  IdempotencyClaimLostError,
  QuotaExceededError,
  StoreUnavailableError,
} from '../../src/store/types.js'
import { problemCodesOf, problemResponses } from '../../src/http/problem.js'

describe('toServiceError: the one mapping of the lower layers to the catalog', () => {
  it('Should map each store and dialect error to its code, with Retry-After where a retry helps', () => {
    const cases: [Error, string, string | undefined][] = [
      [new DialectConflictError('s03', 'claude-todowrite'), 'dialect-conflict', undefined],
      [new StoreUnavailableError(), 'store-unavailable', '1'],
      [new StoreUnavailableError(undefined, true), 'store-unavailable', '1'],
      [new QuotaExceededError(3), 'session-quota-exceeded', undefined],
      [new IdempotencyClaimLostError(), 'idempotency-claim-lost', '1'],
      [new ConflictRetryError(), 'contention', '1'],
    ]
    for (const [error, code, retryAfter] of cases) {
      const mapped = toServiceError(error)
      assert.ok(mapped instanceof ServiceError, error.name)
      assert.equal(mapped.code, code)
      assert.equal(mapped.headers?.['Retry-After'], retryAfter)
    }
    assert.match(toServiceError(new QuotaExceededError(3))!.message, /at most 3 live sessions/)
    assert.match(
      toServiceError(new StoreUnavailableError(undefined, true))!.message,
      /cannot write/
    )
  })

  it('Should pass a ServiceError through and leave anything else to the adapter', () => {
    const own = new ServiceError('forbidden', 'no')
    assert.equal(toServiceError(own), own)
    assert.equal(toServiceError(new Error('bug')), null)
    assert.equal(toServiceError('thrown text'), null)
  })
})

describe('problemResponses: the codes a route answers, under their statuses', () => {
  it('Should group codes by the catalog status and name them in the description', () => {
    const responses = problemResponses('invalid-session-id', 'malformed-json', 'session-not-found')
    assert.deepEqual(Object.keys(responses), ['400', '404'])
    assert.equal(responses[400].description, 'Bad Request (`invalid-session-id`, `malformed-json`)')
    assert.deepEqual(problemCodesOf(responses[404]), ['session-not-found'])
    // a bare status names no code, as before
    assert.equal(problemResponses(401)[401].description, 'Unauthorized')
  })
})
