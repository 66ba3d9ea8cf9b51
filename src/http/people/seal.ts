/**
 * @module http/people/seal
 * Sealed cookies: a small JSON value encrypted and authenticated with AES-256-GCM (node:crypto),
 * under a key derived by HKDF-SHA256 from `AUTH_SESSION_SECRET` and the cookie's purpose. The
 * browser can neither read the claims in it nor change them; a cookie of one purpose does not
 * open as another's. No server-side state: any instance of a fleet with the same secret opens it.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto'

const IV_BYTES = 12
const TAG_BYTES = 16

/** Seals and opens the cookies of one purpose. */
export interface Sealer {
  seal(value: object): string
  /** The value, or null for a cookie that is not one of ours (tampered, another key or purpose). */
  open(text: string): unknown
}

/**
 * A key of its own for each purpose, from the one secret.
 * @param secret - `AUTH_SESSION_SECRET`
 * @param purpose - e.g. `session`, `login`, `csrf`
 */
export const deriveKey = (secret: string, purpose: string): Buffer =>
  Buffer.from(hkdfSync('sha256', secret, 'agent-todos', `agent-todos ${purpose} v1`, 32))

/**
 * The sealer of one purpose.
 * @param secret - `AUTH_SESSION_SECRET`
 * @param purpose - what the cookie is (its key is derived from it)
 */
export function sealer(secret: string, purpose: string): Sealer {
  const key = deriveKey(secret, purpose)
  const aad = Buffer.from(purpose)
  return {
    seal(value) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad)
      const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()])
      return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')
    },
    open(text) {
      const raw = Buffer.from(text, 'base64url')
      if (raw.length <= IV_BYTES + TAG_BYTES || raw.length > 4096) return null
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES))
        decipher.setAAD(aad).setAuthTag(raw.subarray(raw.length - TAG_BYTES))
        const plain = Buffer.concat([
          decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
          decipher.final(),
        ])
        return JSON.parse(plain.toString('utf8')) as unknown
      } catch {
        return null
      }
    },
  }
}

/**
 * The CSRF token of a sign-in: an HMAC of its session id, so only a page that read it from
 * `GET /v1/whoami` (the service's own) can send it, and it dies with the sign-in.
 * @param key - the `csrf` key (`deriveKey`)
 * @param sessionId - the sealed session's id
 */
export const csrfTokenOf = (key: Buffer, sessionId: string): string =>
  createHmac('sha256', key).update(sessionId).digest('base64url')
