/**
 * How the rounds route answers malformed input: the answers zod-openapi's own validators gave
 * before the route validated its input itself (src/http/route-input.ts), recorded case by case.
 * Shared by the app.request() test and the real-server test.
 */
const OK = JSON.stringify({ tool_calls: [{ name: 'bash' }] })

export interface RoundInputCase {
  name: string
  path: string
  body: string | undefined
  headers: Record<string, string>
  status: number
  /** The problem type's slug, or null for a 200. */
  problem: string | null
  detail: string | null
  pointers: string[]
}

export const ROUND_INPUT_CASES: RoundInputCase[] = [
  {
    name: 'bad id',
    path: '/v1/sessions/-bad/rounds',
    body: OK,
    headers: { 'content-type': 'application/json' },
    status: 400,
    problem: 'invalid-session-id',
    detail: 'The request param is invalid.',
    pointers: ['/path/session_id'],
  },
  {
    name: 'bad id and body',
    path: '/v1/sessions/-bad/rounds',
    body: '{',
    headers: { 'content-type': 'text/plain' },
    status: 400,
    problem: 'invalid-session-id',
    detail: 'The request param is invalid.',
    pointers: ['/path/session_id'],
  },
  {
    name: 'text/plain',
    path: '/v1/sessions/c1/rounds',
    body: OK,
    headers: { 'content-type': 'text/plain' },
    status: 415,
    problem: 'http-error',
    detail: 'Unsupported Media Type',
    pointers: [],
  },
  {
    name: 'no type, body',
    path: '/v1/sessions/c2/rounds',
    body: OK,
    headers: {},
    status: 415,
    problem: 'http-error',
    detail: 'Unsupported Media Type',
    pointers: [],
  },
  {
    name: 'no type, no body',
    path: '/v1/sessions/c3/rounds',
    body: undefined,
    headers: {},
    status: 400,
    problem: 'invalid-request',
    detail: 'The request body is invalid.',
    pointers: ['/tool_calls'],
  },
  {
    name: 'malformed',
    path: '/v1/sessions/c4/rounds',
    body: '{"tool_calls": [',
    headers: { 'content-type': 'application/json' },
    status: 400,
    problem: 'malformed-json',
    detail: 'The request body is not valid JSON.',
    pointers: [''],
  },
  {
    name: 'empty json',
    path: '/v1/sessions/c5/rounds',
    body: '',
    headers: { 'content-type': 'application/json' },
    status: 400,
    problem: 'malformed-json',
    detail: 'The request body is not valid JSON.',
    pointers: [''],
  },
  {
    name: 'charset',
    path: '/v1/sessions/c6/rounds',
    body: OK,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    status: 200,
    problem: null,
    detail: null,
    pointers: [],
  },
  {
    name: '+json',
    path: '/v1/sessions/c7/rounds',
    body: OK,
    headers: { 'content-type': 'application/vnd.agent+json' },
    status: 200,
    problem: null,
    detail: null,
    pointers: [],
  },
  {
    name: 'JSON upper',
    path: '/v1/sessions/c8/rounds',
    body: OK,
    headers: { 'content-type': 'Application/JSON' },
    status: 200,
    problem: null,
    detail: null,
    pointers: [],
  },
  {
    name: 'array',
    path: '/v1/sessions/c9/rounds',
    body: '[]',
    headers: { 'content-type': 'application/json' },
    status: 400,
    problem: 'invalid-request',
    detail: 'The request body is invalid.',
    pointers: [''],
  },
  {
    name: 'no calls',
    path: '/v1/sessions/c10/rounds',
    body: '{"tool_calls":[]}',
    headers: { 'content-type': 'application/json' },
    status: 400,
    problem: 'invalid-request',
    detail: 'The request body is invalid.',
    pointers: ['/tool_calls'],
  },
  {
    name: 'bad call',
    path: '/v1/sessions/c11/rounds',
    body: '{"tool_calls":[{"name":""}],"dialect":7}',
    headers: { 'content-type': 'application/json' },
    status: 400,
    problem: 'invalid-request',
    detail: 'The request body is invalid.',
    pointers: ['/dialect', '/tool_calls/0/name'],
  },
  {
    name: 'json-seq',
    path: '/v1/sessions/c12/rounds',
    body: OK,
    headers: { 'content-type': 'application/json-seq' },
    status: 415,
    problem: 'http-error',
    detail: 'Unsupported Media Type',
    pointers: [],
  },
  {
    name: 'problem+json',
    path: '/v1/sessions/c13/rounds',
    body: OK,
    headers: { 'content-type': 'application/problem+json' },
    status: 200,
    problem: null,
    detail: null,
    pointers: [],
  },
  {
    name: 'null',
    path: '/v1/sessions/c14/rounds',
    body: 'null',
    headers: { 'content-type': 'application/json' },
    status: 400,
    problem: 'invalid-request',
    detail: 'The request body is invalid.',
    pointers: [''],
  },
]
