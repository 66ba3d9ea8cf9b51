/**
 * @module service/errors
 * The one closed catalog of the service's errors, and the typed error the use cases throw.
 *
 * Each code is a problem type: HTTP answers it as RFC 9457 problem+json with `type`
 * `https://agent-todos.dev/problems/<code>`, the catalog's status and title (http/problem); it is
 * documented under its own heading of `docs/errors.md` (a unit test holds every code to that). A
 * throw site names a code, never a status: adding a code means adding it here and to the docs.
 */

/** The title of each status a problem can carry (the status's reason phrase, RFC 9110). */
export const STATUS_TITLES = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
} as const

/** A status a problem of the catalog can carry. */
export type ProblemStatus = keyof typeof STATUS_TITLES

/** Where the codes are documented, relative to the repository root. */
export const ERRORS_DOC = 'docs/errors.md'

const entry = <S extends ProblemStatus>(status: S) => ({
  status,
  title: STATUS_TITLES[status],
})

/**
 * Every error the service answers, by code. `unauthorized` and `http-error` also pass on the
 * status of a refusal hono's own middleware made (a malformed Authorization header is 400, a
 * body a validator will not read 415); every other code has exactly its status.
 */
export const ERROR_CATALOG = {
  // the request
  'invalid-request': entry(400),
  'invalid-session-id': entry(400),
  'malformed-json': entry(400),
  'body-too-deep': entry(400),
  'invalid-cursor': entry(400),
  'too-many-tool-calls': entry(400),
  'invalid-ingest-body': entry(400),
  'ingest-wrong-agent': entry(400),
  'session-unknown': entry(400),
  'too-many-sessions': entry(400),
  'invalid-webhook': entry(400),
  'delivery-aborted': entry(400),
  'body-too-large': entry(413),
  'unsupported-media-type': entry(415),
  'method-not-allowed': entry(405),
  'not-found': entry(404),
  'http-error': entry(400),
  // who asks
  unauthorized: entry(401),
  forbidden: entry(403),
  'foreign-origin': entry(403),
  'untrusted-edit': entry(403),
  'rate-limited': entry(429),
  'too-many-streams': entry(429),
  'session-quota-exceeded': entry(403),
  'webhook-quota-exceeded': entry(403),
  // people: sign-in, personal tokens, the audit
  'no-user': entry(400),
  'csrf-refused': entry(403),
  'sign-in-refused': entry(401),
  'sign-in-no-tenant': entry(403),
  'sign-in-not-configured': entry(404),
  'token-not-found': entry(404),
  'token-quota-exceeded': entry(403),
  'identity-provider-unavailable': entry(503),
  // the session
  'session-not-found': entry(404),
  'dialect-not-found': entry(404),
  'agent-owns-list': entry(409),
  'not-observed': entry(409),
  'dialect-conflict': entry(409),
  'version-mismatch': entry(412),
  'dialect-rule': entry(422),
  'limit-exceeded': entry(422),
  // webhooks
  'webhook-not-found': entry(404),
  'webhook-target-refused': entry(422),
  'webhooks-unsupported': entry(501),
  // decisions
  'decision-not-found': entry(404),
  'decision-not-allowed': entry(403),
  'decision-already-made': entry(409),
  'decision-expired': entry(410),
  'slack-signature': entry(401),
  // Idempotency-Key
  'idempotency-key-reused': entry(422),
  'idempotency-in-flight': entry(409),
  'idempotency-claim-lost': entry(503),
  // the service
  'store-unavailable': entry(503),
  contention: entry(503),
  draining: entry(503),
  internal: entry(500),
} as const satisfies Record<string, { status: ProblemStatus; title: string }>

/** A code of the catalog. */
export type ErrorCode = keyof typeof ERROR_CATALOG

/** The status of a code. */
export type StatusOf<C extends ErrorCode> = (typeof ERROR_CATALOG)[C]['status']

/** The catalog's codes, in its order. */
export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[]

/**
 * Where a code is documented: `docs/errors.md#<code>` (its heading is the code itself).
 * @param code - the code
 */
export const docsAnchor = (code: ErrorCode): string => `${ERRORS_DOC}#${code}`

/** One field of the request that is wrong, by JSON Pointer (RFC 6901) into the request part. */
export interface FieldError {
  pointer: string
  detail: string
}

/** What an error may carry besides its code and detail. */
export interface ServiceErrorExtra {
  /** The fields of the request at fault. */
  errors?: FieldError[]
  /** Headers the answer carries (`Retry-After`, `Allow`). */
  headers?: Record<string, string>
}

/**
 * A refusal or failure of a use case: a code of the catalog and a detail for a person. Thrown
 * inside a store updater, it is the request's verdict, not a store fault; the adapters (HTTP,
 * MCP) map it to their own answers.
 */
export class ServiceError extends Error {
  readonly errors?: FieldError[]
  readonly headers?: Record<string, string>
  /**
   * @param code - the catalog's code
   * @param detail - what went wrong, for a person (the message)
   * @param extra - field errors and headers
   */
  constructor(
    readonly code: ErrorCode,
    detail: string,
    extra: ServiceErrorExtra = {}
  ) {
    super(detail)
    this.name = 'ServiceError'
    if (extra.errors) this.errors = extra.errors
    if (extra.headers) this.headers = extra.headers
  }

  /** The catalog's status of the code. */
  get status(): ProblemStatus {
    return ERROR_CATALOG[this.code].status
  }
}

/**
 * The 404 of a session the tenant does not have.
 * @param sessionId - the session asked for
 */
export const sessionNotFound = (sessionId: string) =>
  new ServiceError('session-not-found', `No session '${sessionId}'.`)
