/**
 * @module http/people/tokens
 * `POST /v1/tokens`, `GET /v1/tokens`, `DELETE /v1/tokens/{id}`: a person's personal tokens
 * (service/people/tokens). Each mint and revoke is in the audit trail.
 */
import { createRoute } from '@hono/zod-openapi'
import type { TokenRecord } from '../../store/people/types.js'
import * as tokens from '../../service/people/tokens.js'
import { operation } from '../operation.js'
import { problemResponses } from '../problem.js'
import { jsonReply, resourceRoute } from '../route-config.js'
import { emptyResponse, jsonResponse, jsonText } from '../typed-response.js'
import type { ServiceDeps } from '../../service/deps.js'
import { audit, callerOf, userFilter } from './actor.js'
import { CreatedToken, TokenCreate, TokenIdParam, TokenList, TokenListQuery } from './schemas.js'

const iso = (ms: number) => new Date(ms).toISOString()

/** A token as replies show it: never its hash or its tenant. */
export const tokenView = (record: TokenRecord) => ({
  id: record.id,
  name: record.name,
  role: record.role,
  user: record.user,
  created_at: iso(record.created_at),
  expires_at: record.expires_at === null ? null : iso(record.expires_at),
})

export const createTokenRoute = createRoute({
  method: 'post',
  path: '/v1/tokens',
  operationId: 'createToken',
  tags: ['people'],
  summary: 'Mint a personal token (signed in, or a key with a user); its secret is shown only here',
  request: {
    body: { required: true, content: { 'application/json': { schema: TokenCreate } } },
  },
  responses: {
    201: jsonReply('The token, with its secret', CreatedToken),
    ...problemResponses(400, 401, 403),
  },
})

/** The operation `POST /v1/tokens`. */
export const createToken = operation(createTokenRoute, async (c, deps: ServiceDeps) => {
  const { record, secret } = await tokens.mintToken(deps, callerOf(c), c.req.valid('json'))
  await audit(c, deps, 'token.create', record.id, { name: record.name, role: record.role })
  return jsonResponse(c, jsonText({ ...tokenView(record), token: secret }), 201, {
    'Cache-Control': 'no-store',
  })
})

export const listTokensRoute = createRoute({
  method: 'get',
  path: '/v1/tokens',
  operationId: 'listTokens',
  tags: ['people'],
  summary: "The caller's personal tokens (an admin: the tenant's), newest first, without secrets",
  request: { query: TokenListQuery },
  responses: {
    200: jsonReply('The tokens', TokenList),
    ...problemResponses(400, 401),
  },
})

/** The operation `GET /v1/tokens`. */
export const listTokens = operation(listTokensRoute, async (c, deps: ServiceDeps) => {
  const list = await tokens.listTokens(deps, callerOf(c), userFilter(c, c.req.valid('query').user))
  return jsonResponse(c, jsonText({ tokens: list.map(tokenView) }), 200, {
    'Cache-Control': 'no-store',
  })
})

export const revokeTokenRoute = resourceRoute(
  'people',
  TokenIdParam,
  problemResponses(400, 401, 404)
)({
  method: 'delete',
  path: '/v1/tokens/{id}',
  operationId: 'revokeToken',
  summary: 'Revoke a personal token (its person, or an admin): refused from then on, everywhere',
  responses: { 204: { description: 'Revoked' } },
})

/** The operation `DELETE /v1/tokens/{id}`. */
export const revokeToken = operation(revokeTokenRoute, async (c, deps: ServiceDeps) => {
  const record = await tokens.revokeToken(deps, callerOf(c), c.req.valid('param').id)
  await audit(c, deps, 'token.revoke', record.id, { name: record.name, user: record.user })
  return emptyResponse(c, 204)
})
