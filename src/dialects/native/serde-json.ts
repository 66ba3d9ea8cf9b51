/**
 * @module dialects/native/serde-json
 * A small emulation of Rust's `serde_json::from_str` into `#[derive(Deserialize)]` types, so a
 * dialect whose native harness is written in Rust (Codex) reports a bad call with the very text
 * serde_json would: same error codes, same `at line L column C` positions (UTF-8 bytes), same
 * order of detection. Only the shapes those dialects need are modelled: structs (from maps or
 * sequences), `Vec<T>`, `String`, `Option<T>` and unit-variant enums.
 */

/** A serde_json error; `line` 0 means the position is not known yet (serde's `fix_position`). */
export class SerdeError extends Error {
  constructor(
    readonly code: string,
    readonly line = 0,
    readonly column = 0
  ) {
    super(line === 0 ? code : `${code} at line ${line} column ${column}`)
    this.name = 'SerdeError'
  }
}

const EOF_VALUE = 'EOF while parsing a value'
const EOF_LIST = 'EOF while parsing a list'
const EOF_OBJECT = 'EOF while parsing an object'
const EOF_STRING = 'EOF while parsing a string'
const EXPECTED_COLON = 'expected `:`'
const EXPECTED_LIST_COMMA_OR_END = 'expected `,` or `]`'
const EXPECTED_OBJECT_COMMA_OR_END = 'expected `,` or `}`'
const EXPECTED_IDENT = 'expected ident'
const EXPECTED_VALUE = 'expected value'
const INVALID_ESCAPE = 'invalid escape'
const INVALID_NUMBER = 'invalid number'
const CONTROL_CHARACTER = 'control character (\\u0000-\\u001F) found while parsing a string'
const KEY_MUST_BE_A_STRING = 'key must be a string'
const LONE_LEADING_SURROGATE = 'lone leading surrogate in hex escape'
const TRAILING_COMMA = 'trailing comma'
const TRAILING_CHARACTERS = 'trailing characters'
const UNEXPECTED_END_OF_HEX_ESCAPE = 'unexpected end of hex escape'

const QUOTE = 0x22
const BACKSLASH = 0x5c

/** serde's `OneOf`: how a list of expected names reads in a message. */
function oneOf(names: readonly string[], none: string): string {
  if (names.length === 0) return none
  if (names.length === 1) return `\`${names[0]}\``
  if (names.length === 2) return `\`${names[0]}\` or \`${names[1]}\``
  return `one of ${names.map((n) => `\`${n}\``).join(', ')}`
}

// Rust's Debug escapes what `char::is_printable` rejects and grapheme extenders.
const RUST_ESCAPED = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}\p{Grapheme_Extend}]/u

/**
 * Rust's `{:?}` of a `&str`, as serde's `Unexpected::Str` prints it.
 * @param s - the string
 */
export function rustDebugStr(s: string): string {
  let out = '"'
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0
    if (ch === '"') out += '\\"'
    else if (ch === '\\') out += '\\\\'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (ch === '\t') out += '\\t'
    else if (ch === '\0') out += '\\0'
    else if (cp >= 0x20 && cp < 0x7f) out += ch
    else if (ch !== ' ' && RUST_ESCAPED.test(ch)) out += `\\u{${cp.toString(16)}}`
    else out += ch
  }
  return `${out}"`
}

/** What serde calls the value a deserializer found instead of the expected one. */
type Unexpected = string

/** A value parser for one Rust type, run on the deserializer. */
export type DeFn<T> = (de: Deserializer) => T

/** One field of a `#[derive(Deserialize)]` struct. */
export interface FieldSpec {
  name: string
  de: DeFn<unknown>
  /** `#[serde(default)]` or `Option<T>`: the value when the field is absent. */
  default?: () => unknown
}

/** A `#[derive(Deserialize)] #[serde(deny_unknown_fields)]` struct. */
export interface StructSpec {
  name: string
  fields: readonly FieldSpec[]
}

/**
 * The state of one `serde_json::Deserializer` over a string: a byte cursor that reports errors
 * where serde_json would.
 */
export class Deserializer {
  private readonly bytes: Uint8Array
  private index = 0

  constructor(text: string) {
    this.bytes = new TextEncoder().encode(text)
  }

  private positionOf(i: number): { line: number; column: number } {
    let line = 1
    let startOfLine = 0
    for (let k = 0; k < i; k++) {
      if (this.bytes[k] === 0x0a) {
        line++
        startOfLine = k + 1
      }
    }
    return { line, column: i - startOfLine }
  }

  /** An error at the position after the last consumed byte (serde's `error`). */
  error(code: string): SerdeError {
    const { line, column } = this.positionOf(this.index)
    return new SerdeError(code, line, column)
  }

  /** An error at the byte being peeked (serde's `peek_error`). */
  peekError(code: string): SerdeError {
    const { line, column } = this.positionOf(Math.min(this.bytes.length, this.index + 1))
    return new SerdeError(code, line, column)
  }

  /** Gives an unpositioned error the current position (serde's `fix_position`). */
  fix(error: unknown): unknown {
    if (error instanceof SerdeError && error.line === 0) return this.error(error.code)
    return error
  }

  private peek(): number | undefined {
    return this.index < this.bytes.length ? this.bytes[this.index] : undefined
  }

  private eat(): void {
    this.index++
  }

  private next(): number | undefined {
    const b = this.peek()
    if (b !== undefined) this.index++
    return b
  }

  /** Skips JSON whitespace and peeks the next byte. */
  parseWhitespace(): number | undefined {
    for (;;) {
      const b = this.peek()
      if (b === 0x20 || b === 0x0a || b === 0x09 || b === 0x0d) this.eat()
      else return b
    }
  }

  private parseIdent(rest: string): void {
    for (let i = 0; i < rest.length; i++) {
      const b = this.next()
      if (b === undefined) throw this.error(EOF_VALUE)
      if (b !== rest.charCodeAt(i)) throw this.error(EXPECTED_IDENT)
    }
  }

  private decodeHexEscape(): number {
    if (this.index + 4 > this.bytes.length) {
      this.index = this.bytes.length
      throw this.error(EOF_STRING)
    }
    const hex = String.fromCharCode(...this.bytes.subarray(this.index, this.index + 4))
    this.index += 4
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw this.error(INVALID_ESCAPE)
    return parseInt(hex, 16)
  }

  private pushCodePoint(out: number[], cp: number): void {
    out.push(...new TextEncoder().encode(String.fromCodePoint(cp)))
  }

  private parseUnicodeEscape(out: number[]): void {
    const n = this.decodeHexEscape()
    if (n >= 0xdc00 && n <= 0xdfff) throw this.error(LONE_LEADING_SURROGATE)
    if (n < 0xd800 || n > 0xdbff) {
      this.pushCodePoint(out, n)
      return
    }
    for (const expected of [BACKSLASH, 0x75]) {
      const b = this.peek()
      if (b === undefined) throw this.peekError(EOF_STRING)
      this.eat()
      if (b !== expected) throw this.error(UNEXPECTED_END_OF_HEX_ESCAPE)
    }
    const n2 = this.decodeHexEscape()
    if (n2 < 0xdc00 || n2 > 0xdfff) throw this.error(LONE_LEADING_SURROGATE)
    this.pushCodePoint(out, (((n - 0xd800) << 10) | (n2 - 0xdc00)) + 0x10000)
  }

  /** Parses a string whose opening quote was eaten. */
  parseStr(): string {
    const out: number[] = []
    for (;;) {
      const b = this.peek()
      if (b === undefined) throw this.error(EOF_STRING)
      this.eat()
      if (b === QUOTE) return new TextDecoder().decode(new Uint8Array(out))
      if (b === BACKSLASH) {
        const esc = this.next()
        if (esc === undefined) throw this.error(EOF_STRING)
        const simple: Record<number, number> = {
          0x22: 0x22,
          0x5c: 0x5c,
          0x2f: 0x2f,
          0x62: 0x08,
          0x66: 0x0c,
          0x6e: 0x0a,
          0x72: 0x0d,
          0x74: 0x09,
        }
        if (esc === 0x75) this.parseUnicodeEscape(out)
        else if (simple[esc] !== undefined) out.push(simple[esc])
        else throw this.error(INVALID_ESCAPE)
      } else if (b < 0x20) {
        throw this.error(CONTROL_CHARACTER)
      } else {
        out.push(b)
      }
    }
  }

  private digits(): string {
    let s = ''
    for (let b = this.peek(); b !== undefined && b >= 0x30 && b <= 0x39; b = this.peek()) {
      s += String.fromCharCode(b)
      this.eat()
    }
    return s
  }

  /** Parses a number (after an eaten `-` when negative) and describes it as serde would. */
  private parseAnyNumber(positive: boolean): Unexpected {
    const first = this.next()
    if (first === undefined) throw this.error(EOF_VALUE)
    if (first < 0x30 || first > 0x39) throw this.error(INVALID_NUMBER)
    let integer = String.fromCharCode(first)
    if (first === 0x30) {
      const b = this.peek()
      if (b !== undefined && b >= 0x30 && b <= 0x39) throw this.peekError(INVALID_NUMBER)
    } else {
      integer += this.digits()
    }
    let isFloat = false
    if (this.peek() === 0x2e) {
      this.eat()
      const frac = this.digits()
      if (frac === '') {
        throw this.peekError(this.peek() === undefined ? EOF_VALUE : INVALID_NUMBER)
      }
      isFloat = true
    }
    const e = this.peek()
    if (e === 0x65 || e === 0x45) {
      this.eat()
      const s = this.peek()
      if (s === 0x2b || s === 0x2d) this.eat()
      const d = this.next()
      if (d === undefined) throw this.error(EOF_VALUE)
      if (d < 0x30 || d > 0x39) throw this.error(INVALID_NUMBER)
      this.digits()
      isFloat = true
    }
    if (!isFloat) {
      const big = BigInt(integer)
      if (positive && big <= 0xffffffffffffffffn) return `integer \`${big}\``
      if (!positive && big !== 0n && big <= 0x8000000000000000n) return `integer \`-${big}\``
    }
    // Codex builds serde_json with `arbitrary_precision`: a number that is no u64 or i64 stays
    // its text (a map to serde), never a float nor out of range (its golden texts say so)
    return 'number'
  }

  /** serde_json's `peek_invalid_type`: consumes the offending scalar and names it. */
  invalidType(expected: string): SerdeError {
    const b = this.peek()
    let unexpected: Unexpected
    if (b === 0x6e) {
      this.eat()
      this.parseIdent('ull')
      unexpected = 'null'
    } else if (b === 0x74) {
      this.eat()
      this.parseIdent('rue')
      unexpected = 'boolean `true`'
    } else if (b === 0x66) {
      this.eat()
      this.parseIdent('alse')
      unexpected = 'boolean `false`'
    } else if (b === 0x2d) {
      this.eat()
      unexpected = this.parseAnyNumber(false)
    } else if (b !== undefined && b >= 0x30 && b <= 0x39) {
      unexpected = this.parseAnyNumber(true)
    } else if (b === QUOTE) {
      this.eat()
      unexpected = `string ${rustDebugStr(this.parseStr())}`
    } else if (b === 0x5b) {
      unexpected = 'sequence'
    } else if (b === 0x7b) {
      unexpected = 'map'
    } else {
      return this.peekError(EXPECTED_VALUE)
    }
    return new SerdeError(`invalid type: ${unexpected}, expected ${expected}`)
  }

  /** Runs `body`, repositioning an unpositioned error as serde_json's entry points do. */
  private positioned<T>(body: () => T): T {
    try {
      return body()
    } catch (error) {
      throw this.fix(error)
    }
  }

  /** `String`. */
  string(): string {
    const b = this.parseWhitespace()
    if (b === undefined) throw this.peekError(EOF_VALUE)
    return this.positioned(() => {
      if (b !== QUOTE) throw this.invalidType('a string')
      this.eat()
      return this.parseStr()
    })
  }

  /** `Option<T>`: `null` is None. */
  option<T>(inner: DeFn<T>): T | null {
    if (this.parseWhitespace() === 0x6e) {
      this.eat()
      this.parseIdent('ull')
      return null
    }
    return inner(this)
  }

  /** Runs a container visitor, then its end check; the visitor's error wins (serde_json). */
  private container<T>(visit: () => T, end: () => void): T {
    let result: T | undefined
    let failure: unknown
    try {
      result = visit()
    } catch (error) {
      failure = error
    }
    try {
      end()
    } catch (error) {
      failure ??= error
    }
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what visit() or end() threw, as it was
    if (failure !== undefined) throw failure
    return result as T
  }

  private endSeq(): void {
    const b = this.parseWhitespace()
    if (b === 0x5d) {
      this.eat()
      return
    }
    if (b === 0x2c) {
      this.eat()
      throw this.peekError(this.parseWhitespace() === 0x5d ? TRAILING_COMMA : TRAILING_CHARACTERS)
    }
    throw this.peekError(b === undefined ? EOF_LIST : TRAILING_CHARACTERS)
  }

  private endMap(): void {
    const b = this.parseWhitespace()
    if (b === 0x7d) {
      this.eat()
      return
    }
    if (b === 0x2c) throw this.peekError(TRAILING_COMMA)
    throw this.peekError(b === undefined ? EOF_OBJECT : TRAILING_CHARACTERS)
  }

  /**
   * The step `nextElement` and `nextKey` begin with, as serde_json's `has_next_element` and
   * `has_next_key` both do it: past the comma between two entries, the byte the next one starts
   * with (undefined at the end of the text); null at the closing `close` where no entry is due.
   */
  private nextEntry(
    first: { value: boolean },
    close: number,
    commaOrEnd: string,
    eof: string
  ): number | undefined | null {
    let b = this.parseWhitespace()
    if (b === close) return null
    if (b === 0x2c && !first.value) {
      this.eat()
      b = this.parseWhitespace()
    } else if (b !== undefined) {
      if (!first.value) throw this.peekError(commaOrEnd)
    } else {
      throw this.peekError(eof)
    }
    first.value = false
    return b
  }

  /** serde_json's `SeqAccess::next_element`: undefined at the closing bracket. */
  private nextElement<T>(first: { value: boolean }, element: DeFn<T>): { value: T } | undefined {
    const b = this.nextEntry(first, 0x5d, EXPECTED_LIST_COMMA_OR_END, EOF_LIST)
    if (b === null) return undefined
    if (b === 0x5d) throw this.peekError(TRAILING_COMMA)
    if (b === undefined) throw this.peekError(EOF_VALUE)
    return { value: element(this) }
  }

  /** serde_json's `MapAccess::next_key`: undefined at the closing brace. */
  private nextKey(first: { value: boolean }): string | undefined {
    const b = this.nextEntry(first, 0x7d, EXPECTED_OBJECT_COMMA_OR_END, EOF_OBJECT)
    if (b === null) return undefined
    if (b === QUOTE) {
      this.eat()
      return this.parseStr()
    }
    if (b === 0x7d) throw this.peekError(TRAILING_COMMA)
    if (b === undefined) throw this.peekError(EOF_VALUE)
    throw this.peekError(KEY_MUST_BE_A_STRING)
  }

  private parseObjectColon(): void {
    const b = this.parseWhitespace()
    if (b === 0x3a) {
      this.eat()
      return
    }
    throw this.peekError(b === undefined ? EOF_OBJECT : EXPECTED_COLON)
  }

  /** `Vec<T>`. */
  seq<T>(element: DeFn<T>): T[] {
    const b = this.parseWhitespace()
    if (b === undefined) throw this.peekError(EOF_VALUE)
    return this.positioned(() => {
      if (b !== 0x5b) throw this.invalidType('a sequence')
      this.eat()
      const first = { value: true }
      return this.container(
        () => {
          const out: T[] = []
          for (
            let next = this.nextElement(first, element);
            next;
            next = this.nextElement(first, element)
          ) {
            out.push(next.value)
          }
          return out
        },
        () => this.endSeq()
      )
    })
  }

  /** A `deny_unknown_fields` struct, from a map or (as serde allows) a sequence. */
  struct(spec: StructSpec): Record<string, unknown> {
    const b = this.parseWhitespace()
    if (b === undefined) throw this.peekError(EOF_VALUE)
    return this.positioned(() => {
      if (b === 0x5b) {
        this.eat()
        return this.container(
          () => this.visitStructSeq(spec),
          () => this.endSeq()
        )
      }
      if (b === 0x7b) {
        this.eat()
        return this.container(
          () => this.visitStructMap(spec),
          () => this.endMap()
        )
      }
      throw this.invalidType(`struct ${spec.name}`)
    })
  }

  private visitStructSeq(spec: StructSpec): Record<string, unknown> {
    const first = { value: true }
    const out: Record<string, unknown> = {}
    const expecting = `struct ${spec.name} with ${spec.fields.length} element${spec.fields.length === 1 ? '' : 's'}`
    spec.fields.forEach((field, i) => {
      const next = this.nextElement(first, field.de)
      if (next) out[field.name] = next.value
      else if (field.default) out[field.name] = field.default()
      else throw new SerdeError(`invalid length ${i}, expected ${expecting}`)
    })
    return out
  }

  private visitStructMap(spec: StructSpec): Record<string, unknown> {
    const first = { value: true }
    const out: Record<string, unknown> = {}
    const names = spec.fields.map((f) => f.name)
    for (let key = this.nextKey(first); key !== undefined; key = this.nextKey(first)) {
      const field = spec.fields.find((f) => f.name === key)
      if (!field)
        throw new SerdeError(
          `unknown field \`${key}\`, expected ${oneOf(names, 'there are no fields')}`
        )
      if (Object.hasOwn(out, key)) throw new SerdeError(`duplicate field \`${key}\``)
      this.parseObjectColon()
      out[key] = field.de(this)
    }
    for (const field of spec.fields) {
      if (Object.hasOwn(out, field.name)) continue
      if (!field.default) throw new SerdeError(`missing field \`${field.name}\``)
      out[field.name] = field.default()
    }
    return out
  }

  /** A `rename_all = "snake_case"` enum of unit variants, from `"v"` or `{"v": null}`. */
  unitEnum(variants: readonly string[]): string {
    const b = this.parseWhitespace()
    if (b === QUOTE) return this.variantName(variants)
    if (b === 0x7b) {
      this.eat()
      const variant = this.variantName(variants)
      this.parseObjectColon()
      this.unit()
      const close = this.parseWhitespace()
      if (close === 0x7d) {
        this.eat()
        return variant
      }
      throw this.error(close === undefined ? EOF_OBJECT : EXPECTED_VALUE)
    }
    throw this.peekError(b === undefined ? EOF_VALUE : EXPECTED_VALUE)
  }

  private variantName(variants: readonly string[]): string {
    const b = this.parseWhitespace()
    if (b === undefined) throw this.peekError(EOF_VALUE)
    return this.positioned(() => {
      if (b !== QUOTE) throw this.invalidType('variant identifier')
      this.eat()
      const name = this.parseStr()
      if (!variants.includes(name)) {
        throw new SerdeError(
          `unknown variant \`${name}\`, expected ${oneOf(variants, 'there are no variants')}`
        )
      }
      return name
    })
  }

  private unit(): void {
    const b = this.parseWhitespace()
    if (b === undefined) throw this.peekError(EOF_VALUE)
    this.positioned(() => {
      if (b !== 0x6e) throw this.invalidType('unit')
      this.eat()
      this.parseIdent('ull')
    })
  }

  /** serde_json's `Deserializer::end`: nothing but whitespace may follow the value. */
  end(): void {
    if (this.parseWhitespace() !== undefined) throw this.peekError(TRAILING_CHARACTERS)
  }
}

/**
 * `serde_json::from_str::<T>(text)`: the value, or serde_json's error text.
 * @param text - the JSON text
 * @param root - the parser of `T`
 */
export function fromStr<T>(
  text: string,
  root: DeFn<T>
): { ok: true; value: T } | { ok: false; message: string } {
  const de = new Deserializer(text)
  try {
    const value = root(de)
    de.end()
    return { ok: true, value }
  } catch (error) {
    if (error instanceof SerdeError) return { ok: false, message: error.message }
    throw error
  }
}
