/**
 * @module cli/origin
 * Who and where `observe` runs the agent, as the `X-Agent-*` headers of its deliveries (SPEC
 * "Who and where"): the login name, the host name, and the git remote and branch of the working
 * directory when git is installed and it is a repository. Written here, not taken from
 * `core/origin`: the CLI ships in the client package, which holds only the client. The service
 * drops a remote URL's credentials again when it stores it.
 */
import { execFileSync } from 'node:child_process'
import { hostname, userInfo } from 'node:os'

/** A git command's one-line output in `cwd`, or '' (no git, no repository, no such value). */
function git(cwd: string, args: string[]): string {
  try {
    return execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2000,
    }).trim()
  } catch {
    return ''
  }
}

/**
 * A remote URL without its userinfo: `https://user:tok@github.com/a/b.git` →
 * `https://github.com/a/b.git`; an scp-like remote (`git@github.com:a/b.git`) as it is.
 * @param remote - the remote's URL
 */
export function withoutUserinfo(remote: string): string {
  return remote.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1')
}

/** A header value: control characters dropped (no header injection), bounded. */
const headerValue = (text: string) => text.replace(/[\p{Cc}]+/gu, '').slice(0, 512)

/**
 * The `X-Agent-User`, `X-Agent-Host`, `X-Agent-Repo` and `X-Agent-Branch` headers for an agent
 * run in `cwd` (the ones that are known).
 * @param cwd - the agent's working directory (null: not a directory here, no repository)
 * @param env - the environment (`AGENT_TODOS_USER` / `AGENT_TODOS_HOST` override the names)
 */
export function originHeaders(
  cwd: string | null,
  env: NodeJS.ProcessEnv = process.env
): Record<string, string> {
  let user = env.AGENT_TODOS_USER ?? ''
  if (!user) {
    try {
      user = userInfo().username
    } catch {
      user = env.USER ?? ''
    }
  }
  const host = env.AGENT_TODOS_HOST || hostname()
  const remotes = cwd === null ? [] : git(cwd, ['remote']).split('\n').filter(Boolean)
  const remote = remotes.includes('origin') ? 'origin' : remotes[0]
  const repo =
    remote && cwd !== null ? withoutUserinfo(git(cwd, ['remote', 'get-url', remote])) : ''
  const branch = cwd === null ? '' : git(cwd, ['symbolic-ref', '--quiet', '--short', 'HEAD'])
  const headers: Record<string, string> = {}
  const add = (name: string, value: string) => {
    const clean = headerValue(value)
    if (clean) headers[name] = clean
  }
  add('X-Agent-User', user)
  add('X-Agent-Host', host)
  add('X-Agent-Repo', repo)
  add('X-Agent-Branch', branch)
  return headers
}
