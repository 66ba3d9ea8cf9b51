/**
 * The unit tier in two processes, one per core of the 2-core dev VM: test/unit-shards/0.ts and
 * 1.ts each import every other test/unit/*.test.ts (in name order, which splits the tier's CPU
 * about evenly), so tsx starts and the app's modules load twice, not once per file. With
 * node --test's one process per file, that start-up was most of the tier's cost (28 s of CPU
 * for 9 s of tests); in one process the tier used one core. Any one file still runs alone:
 * node --import tsx --test <file>.
 */
import { readdirSync } from 'node:fs'

/**
 * Imports this shard's unit test files, one after the other.
 * @param shard - 0-based index of this shard
 * @param shards - how many shards the tier is split into
 */
export async function runUnitShard(shard: number, shards: number): Promise<void> {
  const dir = new URL('unit/', import.meta.url)
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.test.ts'))
    .sort()
    .filter((_, index) => index % shards === shard)
  for (const name of files) await import(new URL(name, dir).href)
}
