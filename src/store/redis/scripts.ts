/**
 * @module store/redis/scripts
 * The Lua scripts (one file each under `lua/`, read once at start) as ioredis commands: they
 * travel as EVALSHA, and ioredis sends the text again after NOSCRIPT. Data always goes in ARGV,
 * never into a script's text.
 */
import { readFileSync } from 'node:fs'
import type { Result } from 'ioredis'

const LUA_DIR = new URL('./lua/', import.meta.url)

/**
 * The text of one script of `lua/`, as Redis receives it.
 * @param name - the file name without `.lua`
 */
export function luaScript(name: string): string {
  return readFileSync(new URL(`${name}.lua`, LUA_DIR), 'utf8')
}

const WRITE_SESSION = luaScript('write-session')

/** The scripts by command name, for ioredis's `scripts` option. */
export const SCRIPTS = {
  // one script text, so one SHA: Cluster passes 2 keys, standalone adds the tenant index
  atWrite: { lua: WRITE_SESSION, numberOfKeys: 2 },
  atWriteIndexed: { lua: WRITE_SESSION, numberOfKeys: 3 },
  atDelete: { lua: luaScript('delete-session'), numberOfKeys: 2 },
  atHistory: { lua: luaScript('read-history'), numberOfKeys: 2, readOnly: true },
  atIdemClaim: { lua: luaScript('claim-idempotency'), numberOfKeys: 1 },
  atIdemComplete: { lua: luaScript('complete-idempotency'), numberOfKeys: 1 },
  atIndexAdd: { lua: luaScript('index-add'), numberOfKeys: 1 },
  atIndexDrop: { lua: luaScript('index-drop'), numberOfKeys: 1 },
  atCount: { lua: luaScript('count-hits'), numberOfKeys: 1 },
}

/** `[1]` when written; `[0, record, token]` or `[0]` (absent) when another writer won. */
export type WriteReply = [number, string?, (string | null)?]

declare module 'ioredis' {
  interface RedisCommander<Context> {
    atWrite(
      sessionKey: string,
      historyKey: string,
      write: string,
      record: string,
      historyEntry: string,
      event: string
    ): Result<WriteReply, Context>
    atWriteIndexed(
      sessionKey: string,
      historyKey: string,
      indexKey: string,
      write: string,
      record: string,
      historyEntry: string,
      event: string
    ): Result<WriteReply, Context>
    atDelete(
      sessionKey: string,
      historyKey: string,
      now: string,
      channel: string,
      event: string
    ): Result<number, Context>
    atHistory(
      sessionKey: string,
      historyKey: string,
      now: string,
      limit: string
    ): Result<string[], Context>
    atIdemClaim(
      recordKey: string,
      now: string,
      fingerprint: string,
      expiresAt: string,
      ttlMs: string
    ): Result<[string, string | null] | null, Context>
    atIdemComplete(
      recordKey: string,
      fingerprint: string,
      reply: string,
      expiresAt: string,
      ttlMs: string
    ): Result<number, Context>
    atIndexAdd(
      indexKey: string,
      score: string,
      member: string,
      ttlMs: string
    ): Result<number, Context>
    atIndexDrop(indexKey: string, member: string, score: string): Result<number, Context>
    atCount(counterKey: string, windowMs: string): Result<[number, number], Context>
  }
}
