/**
 * @module http/people/audit-route
 * `GET /v1/audit`: the tenant's audit trail (admin), newest first, in pages.
 */
import { createRoute } from '@hono/zod-openapi'
import type { AuditCursor, AuditEntry } from '../../core/people.js'
import { listAudit } from '../../service/audit.js'
import type { ServiceDeps } from '../../service/deps.js'
import { operation } from '../operation.js'
import { problemResponses, ServiceError } from '../problem.js'
import { jsonReply } from '../route-config.js'
import { jsonResponse, jsonText } from '../typed-response.js'
import { AuditList, AuditQuery } from './schemas.js'
import { userFilter } from './actor.js'

/** An audit cursor as the reply hands it out. */
export const encodeAuditCursor = (cursor: AuditCursor) =>
  Buffer.from(`${cursor.at}:${cursor.id}`).toString('base64url')

/** A cursor `encodeAuditCursor` made, or undefined. */
export function decodeAuditCursor(token: string): AuditCursor | undefined {
  const match = /^(\d{1,16}):(aud_[0-9a-f]{1,64})$/.exec(
    Buffer.from(token, 'base64url').toString('utf8')
  )
  return match ? { at: Number(match[1]), id: match[2] } : undefined
}

const entryView = (entry: AuditEntry) => ({ ...entry, at: new Date(entry.at).toISOString() })

export const listAuditRoute = createRoute({
  method: 'get',
  path: '/v1/audit',
  operationId: 'listAudit',
  tags: ['people'],
  summary: "The tenant's audit trail (admin), newest first",
  description:
    'Every human action: list edits, ends, deletes, decisions, webhook and token changes, sign-ins; who (`user`, `via`), when, what (`action`, `target`, `detail`). Kept AUDIT_TTL_DAYS (default 90).',
  request: { query: AuditQuery },
  responses: {
    200: jsonReply('A page of the trail', AuditList),
    ...problemResponses(400, 401, 403),
  },
})

/** The operation `GET /v1/audit` (admin; in open access, the one tenant's). */
export const listAuditTrail = operation(listAuditRoute, async (c, deps: ServiceDeps) => {
  if (c.get('role') !== 'admin' && c.get('via') !== 'open') {
    throw new ServiceError(
      'forbidden',
      `The audit trail takes the admin role (the caller's is ${c.get('role')}).`
    )
  }
  const query = c.req.valid('query')
  const cursor = query.cursor === undefined ? undefined : decodeAuditCursor(query.cursor)
  if (query.cursor !== undefined && !cursor) {
    throw new ServiceError('invalid-cursor', 'cursor is not one this service returned', {
      errors: [{ pointer: '/query/cursor', detail: 'invalid cursor' }],
    })
  }
  const page = await listAudit(deps, c.get('tenant'), {
    user: userFilter(c, query.user),
    action: query.action,
    limit: query.limit,
    cursor,
  })
  return jsonResponse(
    c,
    jsonText({
      entries: page.entries.map(entryView),
      next_cursor: page.next ? encodeAuditCursor(page.next) : null,
    }),
    200,
    { 'Cache-Control': 'no-store' }
  )
})
