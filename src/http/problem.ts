/**
 * @module http/problem
 * RFC 9457 problem details: the one error shape of every route.
 */
import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'

export const PROBLEM_TYPE_BASE = 'https://agent-todos.dev/problems/'

export const ProblemFieldError = z
  .object({
    pointer: z.string().openapi({ description: 'JSON Pointer (RFC 6901) into the request part' }),
    detail: z.string(),
  })
  .openapi('ProblemFieldError')

export const ProblemDetails = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z.array(ProblemFieldError).optional(),
    request_id: z.string().optional(),
  })
  .openapi('ProblemDetails')

export type FieldError = z.infer<typeof ProblemFieldError>

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

/** A failure that becomes a problem response. */
export class ProblemError extends HTTPException {
  constructor(
    status: ContentfulStatusCode,
    readonly slug: string,
    detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>
  ) {
    super(status, { message: detail })
    this.name = 'ProblemError'
  }
}

/**
 * Builds a problem+json response.
 * @param c - the context (for the request id)
 * @param status - HTTP status
 * @param slug - the problem type's last path segment
 * @param detail - what went wrong, for a person
 * @param extra - field errors and headers
 */
export function problem(
  c: Context,
  status: ContentfulStatusCode,
  slug: string,
  detail: string,
  extra: { errors?: FieldError[]; headers?: Record<string, string> } = {}
): Response {
  const body: z.infer<typeof ProblemDetails> = {
    type: PROBLEM_TYPE_BASE + slug,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
  }
  if (extra.errors) body.errors = extra.errors
  const requestId = c.get('requestId' as never) as string | undefined
  if (requestId) body.request_id = requestId
  return c.json(body, status, { ...extra.headers, 'Content-Type': 'application/problem+json' })
}

/**
 * The 404 of a session the tenant does not have.
 * @param sessionId - the session asked for
 */
export const sessionNotFound = (sessionId: string) =>
  new ProblemError(404, 'session-not-found', `No session '${sessionId}'.`)

/** Where each validated part of a request points in a problem's field errors. */
const INPUT_POINTER: Record<string, string> = {
  json: '',
  param: '/path',
  query: '/query',
  header: '/headers',
}

/**
 * The 400 problem for a request part that breaks its schema: `invalid-session-id` for the path
 * (its one parameter is the session id), `invalid-request` otherwise.
 * @param target - `param`, `query`, `header` or `json`
 * @param issues - zod issues
 */
export function invalidInput(
  target: string,
  issues: readonly { path: PropertyKey[]; message: string }[]
): ProblemError {
  return new ProblemError(
    400,
    target === 'param' ? 'invalid-session-id' : 'invalid-request',
    `The request ${target === 'json' ? 'body' : target} is invalid.`,
    fieldErrors(issues, INPUT_POINTER[target] ?? '')
  )
}

/**
 * Turns zod issues into problem field errors with JSON Pointers.
 * @param issues - zod issues
 * @param prefix - the pointer of the validated part (`/` for a body, `/query` …)
 */
export function fieldErrors(
  issues: readonly { path: PropertyKey[]; message: string }[],
  prefix = ''
): FieldError[] {
  return issues.map((issue) => ({
    pointer:
      prefix +
      issue.path
        .map((part) => '/' + String(part).replace(/~/g, '~0').replace(/\//g, '~1'))
        .join(''),
    detail: issue.message,
  }))
}

const problemContent = { 'application/problem+json': { schema: ProblemDetails } }

/** OpenAPI response entries for the problems a route can answer. */
export function problemResponses<S extends number>(...statuses: S[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: TITLES[status] ?? 'Error', content: problemContent },
    ])
  ) as Record<S, { description: string; content: typeof problemContent }>
}
