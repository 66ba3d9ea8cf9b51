/**
 * @module http/problem
 * RFC 9457 problem details: the one error shape of every route.
 */
import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from './context.js'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import {
  ERROR_CATALOG,
  ServiceError,
  STATUS_TITLES,
  type ErrorCode,
  type ProblemStatus,
  type ServiceErrorExtra,
  type StatusOf,
} from '../service/errors.js'

export { ServiceError, sessionNotFound } from '../service/errors.js'

export const PROBLEM_TYPE_BASE = 'https://agent-todos.dev/problems/'

/** The detail of a `malformed-json` problem. */
export const MALFORMED_JSON_DETAIL = 'The request body is not valid JSON.'
/** hono's JSON validator's words for a body that does not parse: the problem's field error. */
export const HONO_MALFORMED_JSON = 'Malformed JSON in request body'

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

/** What a problem response carries besides its code and detail. */
export interface ProblemExtra extends ServiceErrorExtra {
  /**
   * The status of a refusal hono's own middleware made, for the two codes that pass it on
   * (`unauthorized`, `http-error`); otherwise the catalog's status of the code.
   */
  status?: ContentfulStatusCode
}

/**
 * Builds a problem+json response: `type` names the code, status and title are the catalog's.
 * @param c - the context (for the request id)
 * @param code - the catalog's code
 * @param detail - what went wrong, for a person
 * @param extra - field errors and headers
 */
export function problem(
  c: Context<AppEnv>,
  code: ErrorCode,
  detail: string,
  extra: ProblemExtra = {}
): Response {
  const status = extra.status ?? ERROR_CATALOG[code].status
  const body: z.infer<typeof ProblemDetails> = {
    type: PROBLEM_TYPE_BASE + code,
    title: (STATUS_TITLES as Record<number, string>)[status] ?? 'Error',
    status,
    detail,
  }
  if (extra.errors) body.errors = extra.errors
  const requestId = c.get('requestId')
  if (requestId) body.request_id = requestId
  return c.json(body, status, { ...extra.headers, 'Content-Type': 'application/problem+json' })
}

/**
 * The problem response of a service error.
 * @param c - the context
 * @param error - the error
 */
export const problemOf = (c: Context<AppEnv>, error: ServiceError): Response =>
  problem(c, error.code, error.message, { errors: error.errors, headers: error.headers })

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
): ServiceError {
  return new ServiceError(
    target === 'param' ? 'invalid-session-id' : 'invalid-request',
    `The request ${target === 'json' ? 'body' : target} is invalid.`,
    { errors: fieldErrors(issues, INPUT_POINTER[target] ?? '') }
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

const problemSchema = { schema: ProblemDetails }

/** An OpenAPI response entry of a problem. */
export interface ProblemResponse {
  description: string
  content: { 'application/problem+json': typeof problemSchema }
}

/** The status a catalog code answers with, or the status itself. */
export type StatusOfItem<I> = I extends ErrorCode
  ? StatusOf<I>
  : I extends ProblemStatus
    ? I
    : never

/** The codes each entry names, by its content object (which survives `{ ...entry }`). */
const namedCodes = new WeakMap<object, readonly ErrorCode[]>()

/**
 * The catalog codes a problem response entry names (`problemResponses`); none for an entry made
 * of a bare status.
 * @param response - a response entry
 */
export const problemCodesOf = (response: { content?: object }): readonly ErrorCode[] =>
  (response.content && namedCodes.get(response.content)) || []

/**
 * The description of a problem entry: what it is, then the codes it may carry.
 * @param what - the title, or a longer description
 * @param codes - the catalog's codes
 */
export const describeProblems = (what: string, codes: readonly ErrorCode[]) =>
  codes.length ? `${what} (${codes.map((code) => `\`${code}\``).join(', ')})` : what

/**
 * A problem response entry described by `what` and naming `codes`.
 * @param what - the title, or a longer description
 * @param codes - the catalog's codes it may carry
 */
export function problemEntry(what: string, codes: readonly ErrorCode[]): ProblemResponse {
  const content = { 'application/problem+json': problemSchema }
  namedCodes.set(content, codes)
  return { description: describeProblems(what, codes), content }
}

/**
 * OpenAPI response entries for the problems a route can answer: each catalog code under its
 * status, the entry described by the status's title and the codes it names (a bare status: the
 * title alone, no code named).
 * @param items - the codes the route answers (a status for a problem of no code of its own)
 */
export function problemResponses<I extends ErrorCode | ProblemStatus>(...items: I[]) {
  const byStatus = new Map<ProblemStatus, ErrorCode[]>()
  for (const item of items as (ErrorCode | ProblemStatus)[]) {
    const status = typeof item === 'number' ? item : ERROR_CATALOG[item].status
    const codes = byStatus.get(status) ?? []
    if (typeof item === 'string' && !codes.includes(item)) codes.push(item)
    byStatus.set(status, codes)
  }
  const entries = [...byStatus].map(([status, codes]): [ProblemStatus, ProblemResponse] => [
    status,
    problemEntry(STATUS_TITLES[status], codes),
  ])
  return Object.fromEntries(entries) as Record<StatusOfItem<I>, ProblemResponse>
}
