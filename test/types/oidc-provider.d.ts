/**
 * The little of oidc-provider's API the sign-in tests use (the package ships no types, and
 * @types/oidc-provider is not installed).
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  interface Account {
    accountId: string
    claims(): Record<string, unknown> | Promise<Record<string, unknown>>
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    on(event: string, listener: (ctx: unknown, error: Error) => void): this
  }

  export type FindAccount = (ctx: unknown, id: string) => Account | undefined
}
