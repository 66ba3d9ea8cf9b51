/**
 * @module http/people/schemas
 * The schemas of the people operations (docs/people.md): personal tokens and the audit trail.
 */
import { z } from '@hono/zod-openapi'
import { AUDIT_VIAS, TOKEN_ROLES } from '../../core/people.js'
import { MAX_TOKEN_DAYS } from '../../service/people/tokens.js'

export const TokenIdParam = z.object({
  id: z
    .string()
    .regex(/^tok_[A-Za-z0-9_-]{12}$/, 'a token id (tok_ and 12 characters)')
    .openapi({ param: { name: 'id', in: 'path' }, example: 'tok_Zm9vYmFyYmF6cXV4' }),
})

export const TokenCreate = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(128)
      .openapi({ description: 'What it is for, e.g. "laptop hooks"', example: 'laptop hooks' }),
    role: z.enum(TOKEN_ROLES).openapi({
      description: "agent (reads and writes) or viewer (reads); never more than the caller's",
    }),
    expires_days: z.number().int().min(1).max(MAX_TOKEN_DAYS).optional().openapi({
      description: 'Days until it stops working; absent: it does not expire (revoke it)',
    }),
  })
  .openapi('TokenCreate')

const tokenFields = {
  id: z.string(),
  name: z.string(),
  role: z.enum(TOKEN_ROLES),
  user: z.string().openapi({ description: 'The person it acts for' }),
  created_at: z.string(),
  expires_at: z.string().nullable(),
}

export const Token = z.object(tokenFields).openapi('Token', {
  description: 'A personal token, without its secret',
})

export const CreatedToken = z
  .object({
    ...tokenFields,
    token: z.string().openapi({
      description:
        'The secret (`atk_` + 43 characters): send it as `Authorization: Bearer <token>`. Shown only in this reply.',
    }),
  })
  .openapi('CreatedToken')

export const TokenList = z.object({ tokens: z.array(Token) }).openapi('TokenList')

export const TokenListQuery = z.object({
  user: z.string().min(1).max(256).optional().openapi({
    description: "An admin: only this person's tokens (others always see their own only)",
  }),
})

export const AuditEntry = z
  .object({
    id: z.string(),
    at: z.string().openapi({ description: 'When (RFC 3339)' }),
    tenant: z.string(),
    user: z.string().nullable().openapi({ description: 'Who (a verified person), or null' }),
    via: z.enum(AUDIT_VIAS).openapi({
      description: 'How the person came in: key, token, oidc, open, or slack (a Slack click)',
    }),
    action: z.string().openapi({ example: 'session.edit' }),
    target: z.string().nullable().openapi({ description: 'A session, webhook or token id' }),
    detail: z.union([z.string(), z.record(z.string(), z.unknown())]).nullable(),
  })
  .openapi('AuditEntry')

export const AuditList = z
  .object({ entries: z.array(AuditEntry), next_cursor: z.string().nullable() })
  .openapi('AuditList')

export const AuditQuery = z.object({
  user: z.string().min(1).max(512).optional().openapi({ description: 'Only this person' }),
  action: z.string().min(1).max(64).optional().openapi({
    description:
      'Only this action (session.edit, session.end, session.delete, webhook.create, webhook.delete, webhook.rotate, token.create, token.revoke, auth.login, auth.logout, …)',
  }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(512).optional(),
})
