/**
 * The unit tier in two processes, one per core of the 2-core dev VM: test/unit-shards/0.ts and
 * 1.ts each import every other unit test file (in name order, which splits the tier's CPU about
 * evenly), so tsx starts and the app's modules load twice, not once per file. With node --test's
 * one process per file, that start-up was most of the tier's cost (28 s of CPU for 9 s of tests);
 * in one process the tier used one core. The unit test files are test/unit/*.test.ts and the
 * *.test.ts files under src/, tests that live beside their sources (a dialect's, in
 * src/dialects/<name>/). Any one file still runs alone: node --import tsx --test <file>.
 */
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const ROOT = new URL('../', import.meta.url)

/**
 * The unit tier's test files, as paths from the repository root in name order: test/unit/*.test.ts
 * and every *.test.ts under src/.
 */
export function unitTestFiles(): string[] {
  const inUnit = readdirSync(new URL('test/unit/', ROOT))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `test/unit/${name}`)
  const inSrc = readdirSync(fileURLToPath(new URL('src/', ROOT)), { recursive: true })
    .map((name) => String(name).replaceAll('\\', '/'))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `src/${name}`)
  return [...inUnit, ...inSrc].sort()
}

/**
 * Imports this shard's unit test files, one after the other.
 * @param shard - 0-based index of this shard
 * @param shards - how many shards the tier is split into
 */
export async function runUnitShard(shard: number, shards: number): Promise<void> {
  const files = unitTestFiles().filter((_, index) => index % shards === shard)
  for (const path of files) await import(new URL(path, ROOT).href)
}
