/**
 * @module core/origin
 * Who and where a session runs (docs/observe.md, "Who and where"): the user, host, working directory,
 * repository and branch of the agent, which agent and model, and free labels. Filled from the
 * agent's own events and from the delivery's headers; a field once set is never rewritten, so a
 * session's origin does not flap between deliveries.
 */

/** The fields of an origin, in the order views list them. */
export const ORIGIN_FIELDS = [
  'user',
  'host',
  'cwd',
  'repo',
  'branch',
  'agent',
  'agent_version',
  'model',
] as const

export type OriginField = (typeof ORIGIN_FIELDS)[number]

/**
 * Where a session runs; each field a string or null (unknown). `user_verified`: the user came
 * from a credential (a personal token, a keys-file key's user, a sign-in), not a header alone
 * (absent in sessions stored before: false).
 */
export type Origin = Record<OriginField, string | null> & { user_verified?: boolean }

/**
 * What one delivery or request says of the origin (absent fields say nothing); `verified`: its
 * `user` is the caller's credential's, not a claim.
 */
export type OriginHints = Partial<Record<OriginField, string | null | undefined>> & {
  verified?: boolean
}

/** Free labels: name → value. */
export type Labels = Record<string, string>

/** Label names: lower case, as Prometheus-like keys. */
export const LABEL_NAME_PATTERN = /^[a-z][a-z0-9_.-]{0,62}$/
/** Labels per session. */
export const MAX_LABELS = 16
/** Characters of a label value. */
export const MAX_LABEL_VALUE = 256
/**
 * Characters a label value may not hold: C0 and C1 controls and DEL, and the bidi controls
 * (embeddings and overrides U+202A–202E, isolates U+2066–2069, the marks U+200E, U+200F, U+061C)
 * that make a value display other than it reads (a dashboard, `watch`, an alert). A request that
 * sends one is refused (a 400 problem naming the label), as labels beyond the other rules are;
 * origin fields, which headers and agents' events fill best-effort, are stripped of them
 * instead (`mergeOrigin`).
 */
export const UNSAFE_LABEL_CHARACTER = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u

/** Characters kept of an origin field (a path or a URL is longer than a name). */
export const MAX_ORIGIN_FIELD = 512

/** An origin that knows nothing. */
export const EMPTY_ORIGIN: Origin = Object.freeze({
  user: null,
  host: null,
  cwd: null,
  repo: null,
  branch: null,
  agent: null,
  agent_version: null,
  model: null,
})

/** `scheme://` of a URL. */
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i

/** A host as a URL names it: a DNS name or IPv4 address with a dot, `localhost`, or `[IPv6]`, a port. */
const URL_HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)+|localhost|\[[0-9a-f:.]+\])(?::\d*)?$/i

/** An scp-like git remote, `[user@]host:path` (no scheme): the last `@` before a host and `:`. */
const SCP_REMOTE = /^(?:(.*)@)?([a-z0-9_.-]+|\[[0-9a-f:.]+\]):(?!\/\/)(.*)$/is

/**
 * What follows a URL's `scheme://`, without its userinfo. The userinfo ends at the authority's
 * last `@`; a password with `/`, `?` or `#` in it (`https://u:pa/ss@host/x`, not escaped as URLs
 * want) cuts the authority short, so when what comes before that character is not a host, the
 * userinfo runs to the last `@` there is instead (a path or query with an `@` after a real host
 * is kept).
 * @param rest - what follows `scheme://`
 */
function withoutUserinfo(rest: string): string {
  const end = rest.search(/[/?#]/)
  const authority = end === -1 ? rest : rest.slice(0, end)
  const at = authority.lastIndexOf('@')
  if (at !== -1) return rest.slice(at + 1)
  if (URL_HOST.test(authority) || !rest.includes('@')) return rest
  return rest.slice(rest.lastIndexOf('@') + 1)
}

/**
 * A repository as it may be stored, without credentials wherever a remote can carry them (SPEC
 * "Who and where"):
 * - a URL's userinfo (`https://user:tok@github.com/acme/api.git` → `https://github.com/acme/api.git`),
 *   a password with `/` in it too (`withoutUserinfo`);
 * - its query and fragment, whole (`?access_token=…`, `?private_token=…`: a remote's query
 *   carries nothing else worth keeping, and no list of credential names is complete);
 * - an scp-like remote's user (`ghp_…@github.com:acme/api.git` → `github.com:acme/api.git`), except
 *   the conventional `git@` (`git@github.com:acme/api.git` is kept: `git` is the SSH account every
 *   forge uses, not a secret);
 * - `owner/name` and paths as given.
 * @param repo - what a header or an event said
 */
export function withoutCredentials(repo: string): string {
  const scheme = URL_SCHEME.exec(repo)
  if (scheme) {
    return scheme[0] + withoutUserinfo(repo.slice(scheme[0].length)).replace(/[?#].*$/s, '')
  }
  const bare = repo.replace(/[?#].*$/s, '')
  const scp = SCP_REMOTE.exec(bare)
  if (scp && scp[1] !== undefined && !scp[2].includes('/')) {
    const user = scp[1] === 'git' ? 'git@' : ''
    return `${user}${scp[2]}:${scp[3]}`
  }
  return bare
}

/**
 * A hint cleaned for storing: trimmed, control and format characters gone (C0, C1, DEL, and every
 * bidi control among the format characters), bounded; empty means nothing. Stripped, not refused:
 * a header or an agent's event says what it can, and a delivery is never refused for it.
 */
function cleanHint(field: OriginField, value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null
  let text = value.replace(/[\p{Cc}\p{Cf}]+/gu, '').trim()
  if (field === 'repo') text = withoutCredentials(text)
  if (text === '') return null
  return text.length > MAX_ORIGIN_FIELD ? text.slice(0, MAX_ORIGIN_FIELD) : text
}

/**
 * The origin after a delivery: what was unknown is filled from the hints, in order (the first
 * hint that names a field wins), and nothing already known changes. A user fixed by the caller's
 * key goes first among the hints, so a personal key cannot post as someone else.
 * @param current - the stored origin (null for a new session)
 * @param hints - what this delivery says, strongest first
 */
export function mergeOrigin(current: Origin | null | undefined, ...hints: OriginHints[]): Origin {
  const next: Origin = { ...EMPTY_ORIGIN, ...current }
  for (const field of ORIGIN_FIELDS) {
    if (next[field] !== null) continue
    for (const hint of hints) {
      const value = cleanHint(field, hint[field])
      if (value !== null) {
        next[field] = value
        // absent means false: only a credential's user is marked
        if (field === 'user' && hint.verified === true) next.user_verified = true
        break
      }
    }
  }
  // a user a header named first is verified once a credential of that same user delivers
  if (next.user !== null && next.user_verified !== true) {
    const proof = hints.find((hint) => hint.verified && cleanHint('user', hint.user) === next.user)
    if (proof) next.user_verified = true
  }
  return next
}

/** Whether two origins say the same (a merge that changed nothing needs no write). */
export function sameOrigin(a: Origin | null | undefined, b: Origin | null | undefined): boolean {
  return (
    ORIGIN_FIELDS.every((field) => (a?.[field] ?? null) === (b?.[field] ?? null)) &&
    (a?.user_verified ?? false) === (b?.user_verified ?? false)
  )
}

/**
 * Why a set of labels is refused, or null: at most 16, names `^[a-z][a-z0-9_.-]{0,62}$`, values
 * strings of at most 256 characters without control or bidi characters.
 * @param labels - labels as sent
 */
export function labelsProblem(labels: Record<string, unknown>): string | null {
  const names = Object.keys(labels)
  if (names.length > MAX_LABELS) return `at most ${MAX_LABELS} labels (got ${names.length})`
  for (const name of names) {
    if (!LABEL_NAME_PATTERN.test(name)) {
      return `label name '${name.slice(0, 80)}' must match ${LABEL_NAME_PATTERN.source}`
    }
    const value = labels[name]
    if (typeof value !== 'string') return `label '${name}' must be a string`
    if (value.length > MAX_LABEL_VALUE) {
      return `label '${name}' is longer than ${MAX_LABEL_VALUE} characters`
    }
    if (UNSAFE_LABEL_CHARACTER.test(value)) {
      return `label '${name}' holds a control or bidi character`
    }
  }
  return null
}

/**
 * Labels after a delivery: new names are added (up to the cap), a set name keeps its value.
 * @param current - the stored labels
 * @param added - labels this delivery sends (already checked by `labelsProblem`)
 */
export function mergeLabels(current: Labels | null | undefined, added: Labels | undefined): Labels {
  const next: Labels = { ...current }
  for (const [name, value] of Object.entries(added ?? {})) {
    if (Object.hasOwn(next, name)) continue
    if (Object.keys(next).length >= MAX_LABELS) break
    next[name] = value
  }
  return next
}

/**
 * The `user@host · repo (branch)` line a dashboard or `watch` shows under a session, or '' when
 * nothing is known.
 * @param origin - the session's origin
 */
export function originLine(origin: Origin | null | undefined): string {
  if (!origin) return ''
  const who = [origin.user, origin.host].filter(Boolean).join('@')
  const where = origin.repo ? origin.repo + (origin.branch ? ` (${origin.branch})` : '') : ''
  return [who, where].filter(Boolean).join(' · ')
}

/**
 * A session's origin as views show it: all null when it was stored before origins were kept.
 * @param session - the session (or its brief)
 */
export const originOf = (session: {
  origin?: Origin | null
}): Origin & { user_verified: boolean } => ({
  ...EMPTY_ORIGIN,
  ...session.origin,
  user_verified: session.origin?.user_verified === true,
})

/**
 * A session's labels as views show them ({} when none).
 * @param session - the session (or its brief)
 */
export const labelsOf = (session: { labels?: Labels | null }): Labels => ({ ...session.labels })

/** What a listing may filter on of a session's origin (SPEC: `?user=`, `?host=`, …). */
export interface OriginFilter {
  user?: string
  host?: string
  repo?: string
  agent?: string
  /** Every label named here must have exactly this value. */
  labels?: Labels
}

/** The origin fields a listing filters on. */
export const FILTERED_ORIGIN_FIELDS = ['user', 'host', 'repo', 'agent'] as const

/**
 * Whether a session's origin and labels match a listing's filter (exact match, every condition).
 * @param session - the session's origin and labels (absent: nothing known)
 * @param filter - the listing's conditions
 */
export function matchesOrigin(
  session: { origin?: Origin | null; labels?: Labels | null },
  filter: OriginFilter
): boolean {
  for (const field of FILTERED_ORIGIN_FIELDS) {
    const wanted = filter[field]
    if (wanted !== undefined && (session.origin?.[field] ?? null) !== wanted) return false
  }
  for (const [name, value] of Object.entries(filter.labels ?? {})) {
    const labels = session.labels ?? {}
    if (!Object.hasOwn(labels, name) || labels[name] !== value) return false
  }
  return true
}

/** What one request says of a session's origin and labels (a round, a PUT). */
export interface OriginUpdate {
  /** Strongest first: the key's own user, the `X-Agent-*` headers, the body's `origin`. */
  hints: readonly OriginHints[]
  /** The body's `labels` (checked). */
  labels?: Labels
}

/**
 * A session with what a request says of its origin and labels filled in: unknown fields and new
 * label names only (`mergeOrigin`, `mergeLabels`). The same object when nothing changes.
 * @param session - the session as the request leaves it
 * @param update - what the request says
 */
export function fillOrigin<T extends { origin?: Origin; labels?: Labels }>(
  session: T,
  update: OriginUpdate | undefined
): T {
  if (!update) return session
  const origin = mergeOrigin(session.origin, ...update.hints)
  const labels = mergeLabels(session.labels, update.labels)
  const sameLabels = Object.keys(labels).length === Object.keys(session.labels ?? {}).length
  if (sameOrigin(session.origin, origin) && sameLabels) return session
  return {
    ...session,
    origin: sameOrigin(session.origin, origin) ? session.origin : origin,
    labels: sameLabels ? session.labels : labels,
  }
}
