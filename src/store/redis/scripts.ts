/**
 * @module store/redis/scripts
 * The Lua scripts (one file each under `lua/`, read once at start) as ioredis commands: they
 * travel as EVALSHA, and ioredis sends the text again after NOSCRIPT. Data always goes in ARGV,
 * never into a script's text. Each script's header names its KEYS, ARGV and reply; its first
 * line (`#!lua`, Redis 7) flags it: a write script is refused up front when Redis is out of
 * memory, `no-writes` ones run on replicas and under OOM, `allow-oom` ones only delete.
 */
import { readFileSync } from 'node:fs'
import type { ClientContext, Result } from 'ioredis'

const LUA_DIR = new URL('./lua/', import.meta.url)

/**
 * The text of one script of `lua/`, as Redis receives it.
 * @param name - the file name without `.lua`
 */
export function luaScript(name: string): string {
  return readFileSync(new URL(`${name}.lua`, LUA_DIR), 'utf8')
}

/**
 * The alert store's scripts (store/redis/alerts.ts), each called with its number of keys first.
 */
const ALERT_SCRIPTS = {
  atAlertCreateWebhook: { lua: luaScript('alerts-create-webhook') },
  atAlertDeleteWebhook: { lua: luaScript('alerts-delete-webhook') },
  atAlertAddDelivery: { lua: luaScript('alerts-add-delivery') },
  atAlertClaimDeliveries: { lua: luaScript('alerts-claim-deliveries') },
  atAlertFinishAttempt: { lua: luaScript('alerts-finish-attempt') },
  atAlertDropDelivery: { lua: luaScript('alerts-drop-delivery') },
  atAlertScanStale: { lua: luaScript('alerts-scan-stale') },
  atAlertClaimDirty: { lua: luaScript('alerts-claim-dirty') },
  atAlertReleaseDirty: { lua: luaScript('alerts-release-dirty') },
  atAlertDropWaiting: { lua: luaScript('alerts-drop-waiting') },
}

/** The name of one of the alert store's scripts. */
export type AlertCommand = keyof typeof ALERT_SCRIPTS

/** The scripts by command name, for ioredis's `scripts` option. */
export const SCRIPTS = {
  ...ALERT_SCRIPTS,
  // how many keys the write and delete scripts get depends on the call: it goes first
  atWrite: { lua: luaScript('write-session') },
  atDelete: { lua: luaScript('delete-session') },
  atHistory: { lua: luaScript('read-history'), numberOfKeys: 2, readOnly: true },
  atIdemClaim: { lua: luaScript('claim-idempotency'), numberOfKeys: 1 },
  atIdemReply: { lua: luaScript('store-idempotent-reply'), numberOfKeys: 1 },
  atIdemRelease: { lua: luaScript('release-idempotency'), numberOfKeys: 1 },
  atIndexAdd: { lua: luaScript('index-add'), numberOfKeys: 2 },
  atIndexDrop: { lua: luaScript('index-drop'), numberOfKeys: 1 },
  atSeatReserve: { lua: luaScript('reserve-seat'), numberOfKeys: 2 },
  atCount: { lua: luaScript('count-hits'), numberOfKeys: 1 },
  atFillBrief: { lua: luaScript('fill-brief'), numberOfKeys: 1 },
}

/** The write script's reply (write-session.lua). */
export type WriteReply = [number, (string | null)?, (string | null)?, (number | null)?]

type AlertCommands<Context extends ClientContext> = {
  [C in AlertCommand]: (numberOfKeys: number, ...keysAndArgs: string[]) => Result<unknown, Context>
}

declare module 'ioredis' {
  interface RedisCommander<Context> extends AlertCommands<Context> {
    atWrite(numberOfKeys: number, ...keysAndArgs: string[]): Result<WriteReply, Context>
    atDelete(numberOfKeys: number, ...keysAndArgs: string[]): Result<number, Context>
    atHistory(
      sessionKey: string,
      historyKey: string,
      now: string,
      limit: string,
      before: string,
      maxBytes: string
    ): Result<string[], Context>
    atIdemClaim(
      recordKey: string,
      now: string,
      fingerprint: string,
      token: string,
      expiresAt: string,
      ttlMs: string
    ): Result<[string, string | null] | null, Context>
    atIdemReply(
      recordKey: string,
      now: string,
      token: string,
      reply: string,
      expiresAt: string,
      ttlMs: string
    ): Result<number, Context>
    atIdemRelease(recordKey: string, token: string): Result<number, Context>
    atIndexAdd(
      indexKey: string,
      seatsKey: string,
      score: string,
      member: string,
      ttlMs: string,
      seat: string
    ): Result<number, Context>
    atIndexDrop(indexKey: string, member: string, score: string): Result<number, Context>
    atSeatReserve(
      indexKey: string,
      seatsKey: string,
      now: string,
      ttlMs: string,
      cap: string,
      seat: string,
      seatMs: string
    ): Result<number, Context>
    atCount(counterKey: string, windowMs: string): Result<[number, number], Context>
    atFillBrief(sessionKey: string, token: string, brief: string): Result<number, Context>
  }
}
