// Fixed CPU work, prints elapsed ms: a slow core (hidden host contention) shows up here.
const s = JSON.stringify({
  items: Array.from({ length: 5 }, (_, i) => ({
    id: 't' + i,
    text: 'x'.repeat(150),
    status: 'pending',
  })),
})
let acc = 0
for (let i = 0; i < 2000; i++) acc += JSON.parse(s).items.length
const t = process.hrtime.bigint()
for (let i = 0; i < 40000; i++) acc += JSON.stringify(JSON.parse(s)).length
console.log((Number(process.hrtime.bigint() - t) / 1e6).toFixed(1), acc > 0 ? '' : 'x')
