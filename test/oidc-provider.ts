/**
 * A real OpenID Provider for the sign-in tests: `oidc-provider` (panva's certified OP), in
 * process on a loopback port, with one client registered, accounts whose claims are an email,
 * groups and a tenant (in the ID token), and its development login and consent pages (any
 * password). In front of it, a small proxy on the issuer's own address can forge the ID token of
 * the token endpoint's answer, to play a provider gone wrong: another issuer or audience, an
 * expired token, a signature by a key the provider never published, the wrong nonce.
 * `signInThrough` drives the authorization code flow with plain fetch, as a browser would.
 */
import { createSign, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider, { type FindAccount } from 'oidc-provider'

/** What an account's ID token says. */
export interface TestAccount {
  email: string
  groups?: string[]
  tenant?: string
}

/** How the proxy forges the ID token (null: passes it on). */
export type Forgery = 'issuer' | 'audience' | 'expired' | 'foreign-key' | 'nonce' | null

export interface TestProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** Set to forge the ID tokens of the token endpoint's answers from now on. */
  forge: Forgery
  close(): Promise<void>
}

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))
  )

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** Signs a JWT with RS256 (the forger's: the service verifies with openid-client). */
function signJwt(header: object, payload: object, key: KeyObject): string {
  const input = `${b64(header)}.${b64(payload)}`
  const signature = createSign('RSA-SHA256').update(input).sign(key).toString('base64url')
  return `${input}.${signature}`
}

/**
 * Starts the provider and its proxy.
 * @param options - the accounts (by login) and the redirect URI of the client
 */
export async function startTestProvider(options: {
  accounts: Record<string, TestAccount>
  redirectUri: string
}): Promise<TestProvider> {
  const signing = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const kid = 'op-key-1'
  const jwk = { ...signing.privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }
  const clientId = 'agent-todos'
  const clientSecret = randomBytes(24).toString('base64url')

  // the proxy's address is the issuer: reserve it first
  const proxy = createServer()
  const proxyPort = await listen(proxy)
  const issuer = `http://127.0.0.1:${proxyPort}`
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [jwk as never] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    claims: { openid: ['sub', 'groups', 'tenant'], email: ['email', 'email_verified'] },
    // the claims in the ID token (providers such as Okta and Entra put them there)
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    findAccount: ((_ctx: unknown, id: string) => {
      const account = options.accounts[id]
      if (!account) return undefined
      return {
        accountId: id,
        claims: () => ({ sub: id, email_verified: true, ...account }),
      }
    }) satisfies FindAccount,
  })
  provider.on('server_error', (_ctx, error) => console.error('oidc-provider:', error))
  const op = createServer(provider.callback())
  const opPort = await listen(op)

  const state: TestProvider = {
    issuer,
    clientId,
    clientSecret,
    forge: null,
    async close() {
      proxy.closeAllConnections()
      op.closeAllConnections()
      await new Promise((resolve) => proxy.close(resolve))
      await new Promise((resolve) => op.close(resolve))
    },
  }

  /** The token endpoint's answer with its ID token forged as `state.forge` says. */
  const forged = (body: string): string => {
    const answer = JSON.parse(body) as { id_token?: string }
    if (!answer.id_token || !state.forge) return body
    const claims = JSON.parse(Buffer.from(answer.id_token.split('.')[1], 'base64url').toString())
    const now = Math.floor(Date.now() / 1000)
    const changes: Record<Exclude<Forgery, null>, object> = {
      issuer: { iss: 'http://127.0.0.1:9/another-issuer' },
      audience: { aud: 'another-client' },
      expired: { iat: now - 7200, exp: now - 3600 },
      'foreign-key': {},
      nonce: { nonce: 'not-the-nonce' },
    }
    const key = state.forge === 'foreign-key' ? foreign.privateKey : signing.privateKey
    answer.id_token = signJwt(
      { alg: 'RS256', typ: 'JWT', kid },
      { ...claims, ...changes[state.forge] },
      key
    )
    return JSON.stringify(answer)
  }

  proxy.on('request', (req, res) => {
    const upstream = httpRequest(
      { host: '127.0.0.1', port: opPort, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        const isToken = req.method === 'POST' && req.url?.startsWith('/token')
        if (!isToken || !state.forge) {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
          return
        }
        const chunks: Buffer[] = []
        answer.on('data', (chunk: Buffer) => chunks.push(chunk))
        answer.on('end', () => {
          const body = forged(Buffer.concat(chunks).toString())
          const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(body)) }
          res.writeHead(answer.statusCode ?? 502, headers)
          res.end(body)
        })
      }
    )
    req.pipe(upstream)
  })
  return state
}

/** A tiny cookie jar: name → value, from Set-Cookie headers. */
export class CookieJar {
  readonly cookies = new Map<string, string>()
  take(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const at = pair.indexOf('=')
      const name = pair.slice(0, at).trim()
      const value = pair.slice(at + 1).trim()
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }
  header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }
}

/** The first form of a page: its action and fields (hidden inputs with their values). */
function formOf(html: string, base: string): { action: string; fields: Record<string, string> } {
  const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(html)
  if (!form) throw new Error(`no form in the provider's page:\n${html.slice(0, 500)}`)
  const fields: Record<string, string> = {}
  for (const [tag] of form[2].matchAll(/<input[^>]*>/g)) {
    const name = /\bname="([^"]+)"/.exec(tag)?.[1]
    if (name) fields[name] = /\bvalue="([^"]*)"/.exec(tag)?.[1] ?? ''
  }
  return { action: new URL(form[1].replace(/&amp;/g, '&'), base).href, fields }
}

/**
 * Follows the provider's redirects and submits its login and consent pages as `login`, until it
 * sends the browser back to the service.
 * @param authorizeUrl - where `/auth/login` redirected
 * @param login - the account
 * @param redirectUri - the service's callback
 * @returns the callback URL (with `code`, `state`, `iss`)
 */
export async function signInThrough(
  authorizeUrl: string,
  login: string,
  redirectUri: string
): Promise<URL> {
  const jar = new CookieJar()
  let url = authorizeUrl
  let init: RequestInit = { method: 'GET' }
  for (let step = 0; step < 20; step++) {
    if (url.startsWith(redirectUri)) return new URL(url)
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
    })
    jar.take(response)
    const location = response.headers.get('location')
    if (location) {
      url = new URL(location, url).href
      init = { method: 'GET' }
      continue
    }
    const html = await response.text()
    if (response.status !== 200)
      throw new Error(`provider ${response.status}: ${html.slice(0, 300)}`)
    const form = formOf(html, url)
    if ('login' in form.fields) Object.assign(form.fields, { login, password: 'any' })
    url = form.action
    init = {
      method: 'POST',
      body: new URLSearchParams(form.fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }
  }
  throw new Error('the provider never sent the browser back')
}
