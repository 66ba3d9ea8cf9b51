import { runUnitShard } from '../run-unit.js'

await runUnitShard(0, 2)
