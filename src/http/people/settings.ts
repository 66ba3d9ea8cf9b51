/**
 * @module http/people/settings
 * What sign-in is configured with (`OIDC_*`, `AUTH_SESSION_*`, `PUBLIC_URL`).
 */
import type { OidcSettings } from '../../service/people/oidc.js'
import type { CookieSettings } from './session-cookie.js'

/** Sign-in with OpenID Connect: the provider and the sign-in cookie. */
export interface SignInSettings {
  oidc: OidcSettings
  cookies: CookieSettings
}
