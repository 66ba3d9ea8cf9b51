/**
 * The unit tier in one process: every test/unit/*.test.ts, imported in name order, so tsx
 * starts and the app's modules load once. With node --test's one process per file, that
 * start-up was most of the tier's cost (on the 2-core dev VM 28 s of CPU for 9 s of tests, 37 s
 * wall on two workers). Any one file still runs alone: node --import tsx --test <file>.
 */
import { readdirSync } from 'node:fs'

const dir = new URL('unit/', import.meta.url)
const files = readdirSync(dir).filter((name) => name.endsWith('.test.ts'))
for (const name of files.sort()) await import(new URL(name, dir).href)
