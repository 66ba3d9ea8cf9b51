/**
 * @module cli/lines
 * Splits a byte stream into lines in linear time and bounded memory, for `agent-todos observe`.
 */

/**
 * Cuts a byte stream at each `\n`. Each chunk is searched once, and the bytes of an unfinished line
 * are kept as the chunks they came in, joined once its newline arrives: a long line costs its
 * length, not its length squared. Lines are decoded only when whole, so a UTF-8 character split
 * across reads stays one character (`\n` is never part of a multi-byte sequence). A line longer
 * than `maxLineBytes` is not kept: its bytes are counted and dropped as they come, and it is
 * reported by its length instead.
 */
export class LineSplitter {
  private parts: Buffer[] = []
  private size = 0
  private overlong = false

  /**
   * @param maxLineBytes - the longest line kept, in bytes, without its `\n`
   * @param onLine - each line that fits, decoded as UTF-8, without its `\n`
   * @param onOverlong - each line that did not fit, by its length in bytes
   */
  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverlong: (bytes: number) => void
  ) {}

  /** The next bytes of the stream. */
  push(chunk: Buffer): void {
    let start = 0
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      this.append(chunk.subarray(start, newline))
      this.emit()
      start = newline + 1
    }
    if (start < chunk.length) this.append(chunk.subarray(start))
  }

  /** The stream ended: a last line without its `\n` counts too. */
  end(): void {
    if (this.size) this.emit()
  }

  private append(part: Buffer): void {
    this.size += part.length
    if (this.overlong) return
    if (this.size > this.maxLineBytes) {
      this.overlong = true
      this.parts = []
    } else if (part.length) this.parts.push(part)
  }

  private emit(): void {
    if (this.overlong) this.onOverlong(this.size)
    else this.onLine(Buffer.concat(this.parts, this.size).toString('utf8'))
    this.parts = []
    this.size = 0
    this.overlong = false
  }
}
