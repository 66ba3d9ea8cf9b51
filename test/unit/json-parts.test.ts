import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { jsonArrayWithin, stringifySliced, textBody } from '../../src/http/json-parts.js'

describe('http/json-parts', () => {
  it('Should serialise an object with a sliced array exactly as JSON.stringify does', async () => {
    const items = Array.from({ length: 40 }, (_, i) => ({ id: String(i), text: `"q" \\ ${i}` }))
    const tricky = {
      session_id: 's',
      items,
      rendered: `"items":"\u0000sliced\u0000" and more`,
      current: items[3],
      ended: null,
    }
    assert.equal(await stringifySliced(tricky), JSON.stringify(tricky))
    const short = { items: [1, 2], x: 'y' }
    assert.equal(await stringifySliced(short), JSON.stringify(short))
    // long strings go in pieces, never splitting a surrogate pair
    const emoji = '😀'.repeat(70_000)
    const text = { a: 'x', rendered: `q"\\${emoji}\n${'é'.repeat(100_000)}`, items: [emoji] }
    assert.equal(await stringifySliced(text), JSON.stringify(text))
    const odd = { rendered: 'a' + emoji }
    assert.equal(await stringifySliced(odd), JSON.stringify(odd))
  })

  it('Should take elements in order while they fit the budget, and always the first', async () => {
    const big = 'x'.repeat(1000)
    const all = await jsonArrayWithin([big, big, big], (s) => JSON.stringify(s), 2500)
    assert.equal(all.taken, 2)
    assert.deepEqual(JSON.parse(all.json), [big, big])
    const one = await jsonArrayWithin([big + big + big], (s) => JSON.stringify(s), 100)
    assert.equal(one.taken, 1)
    const none = await jsonArrayWithin([], (s: string) => s, 100)
    assert.deepEqual([none.json, none.taken], ['[]', 0])
  })

  it('Should hand out a long body in pieces that decode to the same text', async () => {
    assert.equal(textBody('{"short":true}'), '{"short":true}')
    const text = JSON.stringify({ rendered: 'a' + '😀'.repeat(100_000), n: 'é'.repeat(70_000) })
    const body = textBody(text)
    assert.ok(body instanceof ReadableStream)
    const pieces: Uint8Array[] = []
    for await (const piece of body) pieces.push(piece)
    assert.ok(pieces.length > 3)
    assert.equal(Buffer.concat(pieces).toString('utf8'), text)
  })
})
