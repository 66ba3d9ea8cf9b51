/**
 * @module http/routes/whoami
 * `GET /v1/whoami`: the caller's tenant, role, verified person and how they were recognised, so a
 * client can show what it may do without trying it; signed in, the X-CSRF-Token its writes send.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../context.js'
import { problemResponses } from '../problem.js'
import { Whoami } from '../schemas.js'
import type { AppRouteHandler } from '../typed-response.js'

const whoami = createRoute({
  method: 'get',
  path: '/v1/whoami',
  tags: ['auth'],
  summary: "The caller's tenant, role and person (and, signed in, the CSRF token)",
  responses: {
    200: { description: 'Who the key is', content: { 'application/json': { schema: Whoami } } },
    ...problemResponses(401),
  },
})

/** The handler of `GET /v1/whoami`. */
const whoamiHandler: AppRouteHandler<typeof whoami> = (c) => {
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
}

/** Registers `GET /v1/whoami`. */
export function registerWhoamiRoute(app: OpenAPIHono<AppEnv>) {
  app.openapi(whoami, whoamiHandler)
}
