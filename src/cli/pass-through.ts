/**
 * @module cli/pass-through
 * How `observe` and the `acp` tap relay a child's pipe: as the bytes come, the writer held back
 * by a slow reader as it would be without us, and each chunk handed to a tap after it was
 * written. A reader of ours that went away (`| head`) stops holding the child back.
 */
import type { Readable } from 'node:stream'

/**
 * Pipes `from` into `to` and hands each chunk to `tap` after it was written.
 * @param from - the child's pipe (or our stdin)
 * @param to - where its bytes go
 * @param tap - sees every chunk, after it was written
 */
export function passThrough(
  from: Readable,
  to: NodeJS.WritableStream,
  tap?: (chunk: Buffer) => void
): void {
  let broken = false
  to.on('error', () => {
    broken = true
    from.resume()
  })
  from.on('data', (chunk: Buffer) => {
    if (!broken && !to.write(chunk)) {
      from.pause()
      to.once('drain', () => from.resume())
    }
    tap?.(chunk)
  })
}
