/**
 * @module dialects/flavour
 * A dialect's flavours: `settings.flavour` picks which package of the native a session speaks
 * (`langchain-todos`: the Python `langchain` or the JS one).
 */
import { FLAVOURS } from '../core/session.js'
import type { Dialect } from './types.js'

export { FLAVOURS, type Flavour } from '../core/session.js'

/**
 * The dialect in a flavour: one of its `flavours`, else the dialect itself (its default flavour,
 * and every flavour of a dialect that has only one).
 * @param dialect - a registered dialect
 * @param flavour - the session's or the request's `flavour`, if any
 */
export function flavourOf(dialect: Dialect, flavour: string | undefined): Dialect {
  return (flavour !== undefined && dialect.flavours?.[flavour]) || dialect
}

/**
 * The flavours a dialect speaks, its default first; empty for a dialect with only one.
 * @param dialect - a registered dialect
 */
export function flavourNames(dialect: Dialect): string[] {
  const others = Object.keys(dialect.flavours ?? {})
  return others.length === 0 ? [] : [FLAVOURS[0], ...others]
}
