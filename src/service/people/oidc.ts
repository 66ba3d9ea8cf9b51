/**
 * @module service/people/oidc
 * Sign-in with OpenID Connect: the authorization code flow with PKCE, `state` and `nonce`,
 * the provider found by discovery (`<OIDC_ISSUER>/.well-known/openid-configuration`).
 *
 * Built on openid-client 6 (panva): an OpenID Certified relying party library maintained by the
 * author of `jose`, with PKCE, state, nonce, discovery and every ID token check (issuer,
 * audience, expiry, signature by a key the provider publishes, nonce) built in. Nothing here
 * checks a token by hand: a hand-rolled check is how sign-ins get bypassed.
 */
import * as client from 'openid-client'
import { ServiceError } from '../errors.js'
import { personOf, type ClaimRules, type Person } from './claims.js'

/** The `OIDC_*` settings and where the provider sends people back. */
export interface OidcSettings extends ClaimRules {
  issuer: string
  clientId: string
  /** None: a public client (PKCE only). */
  clientSecret?: string
  /** `OIDC_SCOPES`; default `openid email profile`. */
  scopes: string
  /** `PUBLIC_URL` + `/auth/callback`. */
  redirectUri: string
}

/** A sign-in under way: what the callback must match, kept in a short-lived sealed cookie. */
export interface PendingLogin {
  state: string
  nonce: string
  verifier: string
  /** Where the person goes once signed in (a path of this service). */
  returnTo: string
  /** Epoch ms after which the callback is refused. */
  exp: number
}

/** How long a sign-in may take at the provider. */
export const PENDING_LOGIN_MS = 10 * 60 * 1000

/** Whether the issuer is on this machine (tests, a local provider): plain http is allowed there. */
const isLoopback = (url: URL) => ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)

/**
 * The sign-in flow of one provider. Discovery runs on the first sign-in and is kept (a failed one
 * is tried again at the next).
 * @param settings - the `OIDC_*` settings
 * @param now - the service's clock: the ID token's times are checked against it
 */
export function createOidc(settings: OidcSettings, now: () => number) {
  let found: Promise<client.Configuration> | undefined
  const issuer = new URL(settings.issuer)
  const discover = () =>
    client.discovery(
      issuer,
      settings.clientId,
      // the ID token's iat/exp are judged by the service's clock (the wall clock in production)
      { [client.clockSkew]: Math.round((now() - Date.now()) / 1000) },
      settings.clientSecret ? client.ClientSecretPost(settings.clientSecret) : client.None(),
      {
        // the ID token's signature is checked against the keys the provider publishes
        // (jwks_uri), though it came over TLS from the token endpoint: SPEC People refuses a
        // token signed by any other key, whatever the channel
        execute: [
          client.enableNonRepudiationChecks,
          ...(isLoopback(issuer) && issuer.protocol === 'http:'
            ? [client.allowInsecureRequests]
            : []),
        ],
        timeout: 10,
      }
    )
  const configuration = async () => {
    found ??= discover()
    try {
      return await found
    } catch (error) {
      found = undefined
      throw new ServiceError(
        'identity-provider-unavailable',
        `The identity provider at ${settings.issuer} cannot be reached or is misconfigured: ${(error as Error).message}`,
        { headers: { 'Retry-After': '5' } }
      )
    }
  }

  return {
    /**
     * Starts a sign-in: where to send the browser, and what to keep until it comes back.
     * @param returnTo - a path of this service
     */
    async start(returnTo: string): Promise<{ url: URL; pending: PendingLogin }> {
      const config = await configuration()
      const verifier = client.randomPKCECodeVerifier()
      const pending: PendingLogin = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        verifier,
        returnTo,
        exp: now() + PENDING_LOGIN_MS,
      }
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri,
        scope: settings.scopes,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
      })
      return { url, pending }
    },

    /**
     * Ends a sign-in: exchanges the code (PKCE), checks the ID token (issuer, audience, expiry,
     * signature, nonce) and the state, and names the person.
     * @param callbackUrl - the callback request's URL, as the provider sent the browser back
     * @param pending - the sign-in this browser started
     * @throws ServiceError `sign-in-refused` for any failed check, `sign-in-no-tenant`
     */
    async finish(callbackUrl: URL, pending: PendingLogin): Promise<Person> {
      if (pending.exp <= now()) {
        throw new ServiceError('sign-in-refused', 'The sign-in took too long; start again.')
      }
      const config = await configuration()
      // the URL the provider redirected to, on the registered redirect URI (a proxy in front
      // of the service changes the scheme and host the request arrived with)
      const current = new URL(settings.redirectUri)
      current.search = callbackUrl.search
      let claims: Record<string, unknown>
      try {
        const tokens = await client.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: pending.verifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        })
        claims = { ...(await userInfo(config, tokens, settings)), ...tokens.claims() }
      } catch (error) {
        if (error instanceof ServiceError) throw error
        throw new ServiceError(
          'sign-in-refused',
          `The identity provider's answer signs no one in: ${(error as Error).message}`
        )
      }
      return personOf(claims, settings)
    },
  }
}

export type Oidc = ReturnType<typeof createOidc>

/**
 * The userinfo claims, when the ID token lacks one the settings need (some providers put only
 * `sub` in it) and the provider has a userinfo endpoint; else none.
 */
async function userInfo(
  config: client.Configuration,
  tokens: { access_token: string; claims(): client.IDToken | undefined },
  settings: OidcSettings
): Promise<Record<string, unknown>> {
  const claims = tokens.claims()
  if (!claims) return {}
  const needed = [settings.userClaim, settings.groupsClaim]
  if (!settings.tenant && settings.tenantClaim) needed.push(settings.tenantClaim)
  if (needed.every((name) => claims[name] !== undefined)) return {}
  if (!config.serverMetadata().userinfo_endpoint) return {}
  return client.fetchUserInfo(config, tokens.access_token, claims.sub)
}
