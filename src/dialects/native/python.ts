/**
 * @module dialects/native/python
 * What Python-based harnesses (LangChain, OpenHands) print, reproduced for JSON values:
 * `repr()`, `str.strip()`, pydantic v2 validation errors and `json.loads` errors.
 */

// Python's str.isprintable() is false for these categories (the space aside).
const PY_NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u

/**
 * Python's `repr()` of a `str`: single quotes unless the text holds a `'` and no `"`.
 * @param s - the string
 */
export function pyStr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'"
  let out = quote
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0
    if (ch === quote || ch === '\\') out += `\\${ch}`
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (ch === '\t') out += '\\t'
    else if (cp >= 0x20 && cp < 0x7f) out += ch
    else if (cp >= 0x7f && !PY_NOT_PRINTABLE.test(ch)) out += ch
    else if (cp <= 0xff) out += `\\x${cp.toString(16).padStart(2, '0')}`
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`
    else out += `\\U${cp.toString(16).padStart(8, '0')}`
  }
  return out + quote
}

/**
 * Python's `repr()` of a float: the shortest round-trip digits, exponent form outside
 * `1e-4 <= |x| < 1e16`.
 * @param x - the number
 */
export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return 'nan'
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf'
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0'
  const sign = x < 0 ? '-' : ''
  const [mantissa, exponent] = Math.abs(x).toExponential().split('e')
  const digits = mantissa.replace('.', '')
  const exp = Number(exponent)
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`
  }
  if (exp >= 0) {
    const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0')
    return `${sign}${whole}.${digits.slice(exp + 1) || '0'}`
  }
  return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`
}

/** Text `pyRepr` writes as is, told apart from the values it still has to write. */
class Text {
  constructor(readonly text: string) {}
}
const SEPARATOR = new Text(', ')
const CLOSE_LIST = new Text(']')
const CLOSE_DICT = new Text('}')

function scalarRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None'
  if (value === true) return 'True'
  if (value === false) return 'False'
  if (typeof value === 'number') {
    return Number.isInteger(value) ? BigInt(value).toString() : pyFloat(value)
  }
  if (typeof value === 'string') return pyStr(value)
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects and arrays are pyRepr's; only a non-JSON primitive (a bigint) gets here
  return pyStr(String(value))
}

/**
 * Python's `repr()` of a value decoded from JSON (`json.loads` makes whole numbers `int`).
 * Iterative, with a stack of its own: the value comes from a request and may be nested deep.
 * @param value - a JSON value
 */
export function pyRepr(value: unknown): string {
  let out = ''
  const todo: unknown[] = [value]
  while (todo.length > 0) {
    const next = todo.pop()
    if (next instanceof Text) {
      out += next.text
    } else if (Array.isArray(next)) {
      out += '['
      todo.push(CLOSE_LIST)
      for (let i = next.length - 1; i >= 0; i--) {
        todo.push(next[i])
        if (i > 0) todo.push(SEPARATOR)
      }
    } else if (typeof next === 'object' && next !== null) {
      out += '{'
      todo.push(CLOSE_DICT)
      const entries = Object.entries(next as Record<string, unknown>)
      for (let i = entries.length - 1; i >= 0; i--) {
        todo.push(entries[i][1], new Text(`${pyStr(entries[i][0])}: `))
        if (i > 0) todo.push(SEPARATOR)
      }
    } else {
      out += scalarRepr(next)
    }
  }
  return out
}

/**
 * The Python type name of a value decoded from JSON.
 * @param value - a JSON value
 */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType'
  if (typeof value === 'boolean') return 'bool'
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float'
  if (typeof value === 'string') return 'str'
  return Array.isArray(value) ? 'list' : 'dict'
}

// Python's whitespace is JavaScript's without U+FEFF, plus U+001C–U+001F and U+0085.
// eslint-disable-next-line no-control-regex -- U+001C–U+001F are the point: Python counts them as whitespace
const PY_SPACE = /^(?!\ufeff)[\s\x1c-\x1f\x85]$/u

/**
 * Python's `str.strip()`.
 * @param s - the string
 */
export function pyStrip(s: string): string {
  let start = 0
  let end = s.length
  while (start < end && PY_SPACE.test(s[start])) start++
  while (end > start && PY_SPACE.test(s[end - 1])) end--
  return s.slice(start, end)
}

/** One pydantic v2 line error. */
export interface PydanticError {
  type: string
  loc: readonly (string | number)[]
  msg: string
  input: unknown
}

/**
 * A Python `Literal[...]` error message: `Input should be 'a', 'b' or 'c'`.
 * @param values - the literal values
 */
export function literalMessage(values: readonly string[]): string {
  const reprs = values.map(pyStr)
  const expected =
    reprs.length <= 1
      ? reprs.join('')
      : `${reprs.slice(0, -1).join(', ')} or ${reprs[reprs.length - 1]}`
  return `Input should be ${expected}`
}

/** pydantic-core's `write_truncated_to_limited_bytes(…, 50)`: long reprs keep head and tail. */
function truncateRepr(repr: string): string {
  const bytes = new TextEncoder().encode(repr)
  if (bytes.length <= 50) return repr
  const isBoundary = (i: number) => i >= bytes.length || (bytes[i] & 0xc0) !== 0x80
  let head = 25
  while (!isBoundary(head)) head--
  let tail = bytes.length - 24
  while (!isBoundary(tail)) tail++
  const decode = (b: Uint8Array) => new TextDecoder().decode(b)
  return `${decode(bytes.subarray(0, head))}...${decode(bytes.subarray(tail))}`
}

/**
 * The pydantic version whose documentation URL appears in error texts. A guess: the installed
 * version of the native harness decides it.
 */
export const PYDANTIC_VERSION = '2.12'

/**
 * `str(ValidationError)` of pydantic v2: a count line, then per error its location, its message
 * with `[type=…, input_value=…, input_type=…]`, and the documentation link.
 * @param title - the model name
 * @param errors - the line errors, in pydantic's order
 */
export function pydanticErrorText(title: string, errors: readonly PydanticError[]): string {
  const lines = errors.map((e) => {
    const loc = e.loc.length > 0 ? `${e.loc.join('.')}\n` : ''
    return (
      `${loc}  ${e.msg} [type=${e.type}, input_value=${truncateRepr(pyRepr(e.input))}, ` +
      `input_type=${pyTypeName(e.input)}]\n` +
      `    For further information visit https://errors.pydantic.dev/${PYDANTIC_VERSION}/v/${e.type}`
    )
  })
  const count = errors.length
  return `${count} validation error${count === 1 ? '' : 's'} for ${title}\n${lines.join('\n')}`
}

/**
 * About where CPython's JSON scanner gives up with `RecursionError` (the interpreter's default
 * recursion limit, 1000, less the frames below it).
 */
const PY_JSON_MAX_DEPTH = 990

class PyRecursionError extends Error {}

class PyJsonError extends Error {
  constructor(
    readonly msg: string,
    readonly pos: number
  ) {
    super(msg)
  }
}

/**
 * Where and why CPython 3.12's `json.loads` (C scanner, strict) rejects a text, formatted as
 * `JSONDecodeError.__str__`: `Expecting value: line 1 column 1 (char 0)`. Null when it parses.
 * Positions count code points, as Python strings do. Nested deeper than CPython's scanner goes,
 * the text of the `RecursionError` it raises instead.
 * @param text - the JSON text
 */
export function pyJsonError(text: string): string | null {
  const s = [...text]
  const n = s.length
  const ws = (i: number) => {
    while (i < n && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i++
    return i
  }
  const scanString = (begin: number): number => {
    let i = begin
    for (;;) {
      if (i >= n) throw new PyJsonError('Unterminated string starting at', begin - 1)
      const c = s[i]
      if (c === '"') return i + 1
      if (c === '\\') {
        if (i + 1 >= n) throw new PyJsonError('Unterminated string starting at', begin - 1)
        const e = s[i + 1]
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6).join(''))) {
            throw new PyJsonError('Invalid \\uXXXX escape', i + 1)
          }
          i += 6
        } else if ('"\\/bfnrt'.includes(e)) {
          i += 2
        } else {
          throw new PyJsonError('Invalid \\escape', i)
        }
      } else if (c.charCodeAt(0) < 0x20) {
        throw new PyJsonError('Invalid control character at', i)
      } else {
        i++
      }
    }
  }
  const literal = (i: number, word: string) => s.slice(i, i + word.length).join('') === word
  const scan = (i: number, depth: number): number => {
    if (i >= n) throw new PyJsonError('Expecting value', i)
    const c = s[i]
    if (c === '"') return scanString(i + 1)
    if ((c === '{' || c === '[') && depth >= PY_JSON_MAX_DEPTH) {
      const kind = c === '{' ? 'object' : 'array'
      throw new PyRecursionError(
        `maximum recursion depth exceeded while decoding a JSON ${kind} from a unicode string`
      )
    }
    if (c === '{') {
      let j = ws(i + 1)
      if (j < n && s[j] === '}') return j + 1
      for (;;) {
        if (j >= n || s[j] !== '"') {
          throw new PyJsonError('Expecting property name enclosed in double quotes', j)
        }
        j = ws(scanString(j + 1))
        if (j >= n || s[j] !== ':') throw new PyJsonError("Expecting ':' delimiter", j)
        j = ws(scan(ws(j + 1), depth + 1))
        if (j < n && s[j] === '}') return j + 1
        if (j >= n || s[j] !== ',') throw new PyJsonError("Expecting ',' delimiter", j)
        j = ws(j + 1)
      }
    }
    if (c === '[') {
      let j = ws(i + 1)
      if (j < n && s[j] === ']') return j + 1
      for (;;) {
        j = ws(scan(j, depth + 1))
        if (j < n && s[j] === ']') return j + 1
        if (j >= n || s[j] !== ',') throw new PyJsonError("Expecting ',' delimiter", j)
        j = ws(j + 1)
      }
    }
    for (const word of ['null', 'true', 'false', 'NaN', 'Infinity', '-Infinity']) {
      if (literal(i, word)) return i + word.length
    }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/.exec(s.slice(i, i + 400).join(''))
    if (m) return i + [...m[0]].length
    throw new PyJsonError('Expecting value', i)
  }
  try {
    // json.loads checks this before it scans (a str, not bytes, that starts with a BOM)
    if (s[0] === '\ufeff') {
      throw new PyJsonError('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0)
    }
    const end = ws(scan(ws(0), 0))
    if (end !== n) throw new PyJsonError('Extra data', end)
    return null
  } catch (error) {
    // not a JSONDecodeError in Python either; bounded here so the scan never overflows the stack
    if (error instanceof PyRecursionError) return error.message
    if (!(error instanceof PyJsonError)) throw error
    const before = s.slice(0, error.pos)
    const lineno = before.filter((c) => c === '\n').length + 1
    const lastNewline = before.lastIndexOf('\n')
    const colno = lastNewline === -1 ? error.pos + 1 : error.pos - lastNewline
    return `${error.msg}: line ${lineno} column ${colno} (char ${error.pos})`
  }
}
