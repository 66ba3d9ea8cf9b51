/**
 * @module alerts/signature
 * Standard Webhooks 1.0 signatures: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`,
 * keyed by the secret's decoded bytes. Written here rather than taken from the
 * `standardwebhooks` package because signing is one HMAC, and the package's signer takes one
 * secret where a rotation signs with two (space-separated signatures, as the standard allows);
 * the tests verify every delivery with the package itself.
 */
import { createHmac, randomBytes } from 'node:crypto'

/** The prefix of a Standard Webhooks secret. */
export const SECRET_PREFIX = 'whsec_'

/** Bytes of a new secret (24, as the SPEC says: `whsec_` + base64 of 24 random bytes). */
const SECRET_BYTES = 24

/** A new secret: `whsec_` and the base64 of 24 random bytes. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64')
}

/** The HMAC key of a secret: the base64 after its prefix, decoded. */
const keyOf = (secret: string) => Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')

/**
 * The `webhook-signature` header of one delivery attempt: one `v1,` signature per secret.
 * @param secrets - the webhook's secrets (during a rotation, the new and the old)
 * @param id - `webhook-id`
 * @param timestampSeconds - `webhook-timestamp`
 * @param body - the exact body sent
 */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string
): string {
  const content = `${id}.${timestampSeconds}.${body}`
  return secrets
    .map((secret) => 'v1,' + createHmac('sha256', keyOf(secret)).update(content).digest('base64'))
    .join(' ')
}
