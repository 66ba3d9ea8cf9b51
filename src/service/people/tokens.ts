/**
 * @module service/people/tokens
 * Personal tokens (docs/people.md): a person's own credential for their agents and tools
 * (`forward-hook.sh`, `observe`, the ACP tap, OTLP headers). The secret is `atk_` + 32 random
 * bytes (base64url), shown once, at minting; the store keeps its sha256 only, so a leaked
 * database holds no usable token. A token acts as its person with its role (agent or viewer,
 * never more than the person's own), in its person's tenant, until it expires or is revoked.
 */
import { createHash, randomBytes } from 'node:crypto'
import { TOKEN_PREFIX, type TokenRole, type Via } from '../../core/people.js'
import type { TokenRecord } from '../../store/people/types.js'
import type { SessionStore } from '../../store/types.js'
import { ServiceError } from '../errors.js'

/** Live personal tokens a person may hold. */
export const MAX_TOKENS_PER_USER = 50

/** The longest lifetime a token may be given, in days. */
export const MAX_TOKEN_DAYS = 3650

const DAY_MS = 24 * 3600 * 1000

/** What the token use cases run on. */
export interface TokenDeps {
  store: Pick<SessionStore, 'people'>
  now: () => number
}

/** The caller of a token operation. */
export interface TokenCaller {
  tenant: string
  /** The verified person; none: the caller cannot own tokens. */
  user?: string
  role: 'admin' | 'agent' | 'viewer'
  /** How the caller was recognised: a token does not mint tokens (a leaked one would outlive its revoke). */
  via?: Via
}

/** Hex sha256 of a token's secret: how the store finds it. */
export const tokenHash = (secret: string) => createHash('sha256').update(secret).digest('hex')

/** Whether a role may hand out another (admin > agent > viewer). */
const RANK = { viewer: 0, agent: 1, admin: 2 } as const

const peopleOf = (deps: TokenDeps) => {
  const people = deps.store.people
  if (!people) throw new ServiceError('forbidden', 'This store keeps no personal tokens.')
  return people
}

/**
 * Mints a token for the caller's own person.
 * @param deps - store and clock
 * @param caller - who asks (must name a person)
 * @param input - its name, role and lifetime in days (none: it does not expire)
 * @returns the record and the secret (shown only here)
 * @throws ServiceError `no-user`, `forbidden` (a role above the caller's), `token-quota-exceeded`
 */
export async function mintToken(
  deps: TokenDeps,
  caller: TokenCaller,
  input: { name: string; role: TokenRole; expires_days?: number }
): Promise<{ record: TokenRecord; secret: string }> {
  const people = peopleOf(deps)
  if (!caller.user) {
    throw new ServiceError(
      'no-user',
      'A personal token belongs to a person: sign in, or use a key with a user (AUTH_KEYS_FILE).'
    )
  }
  if (caller.via === 'token') {
    throw new ServiceError(
      'forbidden',
      'A personal token cannot mint tokens: sign in, or use a key with a user.'
    )
  }
  if (RANK[input.role] > RANK[caller.role]) {
    throw new ServiceError(
      'forbidden',
      `A token cannot do more than its person: role ${input.role} asked, the caller's is ${caller.role}.`
    )
  }
  const own = await people.listTokens(caller.tenant, caller.user)
  if (own.length >= MAX_TOKENS_PER_USER) {
    throw new ServiceError(
      'token-quota-exceeded',
      `A person holds at most ${MAX_TOKENS_PER_USER} live tokens; revoke one first.`
    )
  }
  const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url')
  const now = deps.now()
  const record: TokenRecord = {
    id: `tok_${randomBytes(9).toString('base64url')}`,
    tenant: caller.tenant,
    user: caller.user,
    name: input.name,
    role: input.role,
    hash: tokenHash(secret),
    created_at: now,
    expires_at: input.expires_days === undefined ? null : now + input.expires_days * DAY_MS,
  }
  await people.createToken(record)
  return { record, secret }
}

/**
 * The tokens a caller may see: an admin the tenant's (one person's with `user`), anyone else
 * their own.
 * @throws ServiceError `no-user` for a caller who is no person and no admin
 */
export async function listTokens(
  deps: TokenDeps,
  caller: TokenCaller,
  user?: string
): Promise<TokenRecord[]> {
  const people = peopleOf(deps)
  if (caller.role === 'admin') return people.listTokens(caller.tenant, user)
  if (!caller.user) {
    throw new ServiceError('no-user', 'Only a person (or an admin) has tokens to list.')
  }
  return people.listTokens(caller.tenant, caller.user)
}

/**
 * Revokes a token: its person's or, for an admin, any of the tenant's. Refused from then on, on
 * every instance (the store is the only place a token is found).
 * @returns the revoked record
 * @throws ServiceError `token-not-found` (also for another person's, which a non-admin may not see)
 */
export async function revokeToken(
  deps: TokenDeps,
  caller: TokenCaller,
  id: string
): Promise<TokenRecord> {
  const people = peopleOf(deps)
  const visible = await listTokens(deps, caller)
  if (!visible.some((token) => token.id === id)) {
    throw new ServiceError('token-not-found', `No token '${id}' of yours.`)
  }
  const record = await people.revokeToken(caller.tenant, id)
  if (!record) throw new ServiceError('token-not-found', `No token '${id}' of yours.`)
  return record
}
