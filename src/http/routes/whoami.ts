/**
 * @module http/routes/whoami
 * `GET /v1/whoami`: the caller's tenant, role, verified person and how they were recognised, so a
 * client can show what it may do without trying it; signed in, the X-CSRF-Token its writes send.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../context.js'
import { problemResponses } from '../problem.js'
import { Whoami } from '../schemas.js'
import { operation, registerOperations } from '../operation.js'

export const whoamiRoute = createRoute({
  method: 'get',
  path: '/v1/whoami',
  tags: ['auth'],
  summary: "The caller's tenant, role and person (and, signed in, the CSRF token)",
  operationId: 'whoami',
  responses: {
    200: { description: 'Who the key is', content: { 'application/json': { schema: Whoami } } },
    ...problemResponses('unauthorized'),
  },
})

/** The operation `GET /v1/whoami`: its route and its handler. */
export const whoami = operation(whoamiRoute, (c) => {
  const csrf = c.get('csrfToken')
  return c.json(
    {
      tenant: c.get('tenant'),
      role: c.get('role'),
      user: c.get('keyUser') ?? null,
      via: c.get('via'),
      ...(csrf ? { csrf_token: csrf } : {}),
    },
    200,
    { 'Cache-Control': 'no-store' }
  )
})

/** Registers `GET /v1/whoami`. */
export function registerWhoamiRoute(app: OpenAPIHono<AppEnv>) {
  registerOperations(app, undefined, [whoami])
}
