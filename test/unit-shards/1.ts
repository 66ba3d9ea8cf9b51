import { runUnitShard } from '../run-unit.js'

await runUnitShard(1, 2)
