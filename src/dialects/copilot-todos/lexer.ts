/**
 * @module dialects/copilot-todos/lexer
 * SQLite's token boundaries, and a query split into its statements: the replay (`sql.ts`) reads
 * a statement's first word, its table names and the names it calls from these tokens. It only
 * finds boundaries (comments, strings, quoted identifiers, words, `;`, `(`); SQLite does the
 * parsing, and what a statement may touch is decided on SQLite's own bytecode (`bytecode.ts`).
 */

export type TokenKind = 'word' | 'quoted' | 'string' | 'other' | 'semicolon' | 'paren'

export interface Token {
  kind: TokenKind
  /** Lower-cased word, or the unquoted identifier; the text for the rest. */
  value: string
  start: number
  end: number
}

/** The end of a quoted run starting at `start` (the quote doubled inside is an escape). */
function quotedEnd(text: string, start: number, close: string): number {
  let i = start + 1
  for (;;) {
    const at = text.indexOf(close, i)
    if (at === -1) return text.length
    if (close !== ']' && text[at + 1] === close) {
      i = at + 2
      continue
    }
    return at + 1
  }
}

/**
 * SQLite's token boundaries: comments and whitespace are skipped, strings, quoted identifiers
 * (`"…"`, `` `…` ``, `[…]`), words, `;` and `(` are told apart; the rest is `other`.
 */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (/\s/.test(c)) {
      i++
    } else if (c === '-' && text[i + 1] === '-') {
      const nl = text.indexOf('\n', i)
      i = nl === -1 ? text.length : nl + 1
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2)
      i = close === -1 ? text.length : close + 2
    } else if (c === "'") {
      const end = quotedEnd(text, i, "'")
      tokens.push({ kind: 'string', value: text.slice(i, end), start: i, end })
      i = end
    } else if (c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c
      const end = quotedEnd(text, i, close)
      const inner = text.slice(i + 1, end - 1)
      const value = (close === ']' ? inner : inner.split(close + close).join(close)).toLowerCase()
      tokens.push({ kind: 'quoted', value, start: i, end })
      i = end
    } else if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      let end = i + 1
      while (end < text.length && /[A-Za-z0-9_$\u0080-\uffff]/.test(text[end])) end++
      // x'…' is a blob literal, one token
      if (end === i + 1 && (c === 'x' || c === 'X') && text[end] === "'") {
        end = quotedEnd(text, end, "'")
        tokens.push({ kind: 'string', value: text.slice(i, end), start: i, end })
      } else {
        tokens.push({ kind: 'word', value: text.slice(i, end).toLowerCase(), start: i, end })
      }
      i = end
    } else if (c === ';') {
      tokens.push({ kind: 'semicolon', value: c, start: i, end: i + 1 })
      i++
    } else if (c === '(') {
      tokens.push({ kind: 'paren', value: c, start: i, end: i + 1 })
      i++
    } else {
      const end = c === '|' && text[i + 1] === '|' ? i + 2 : i + 1
      tokens.push({ kind: 'other', value: text.slice(i, end), start: i, end })
      i = end
    }
  }
  return tokens
}

/** One statement of a query: its text and tokens. */
export interface Statement {
  sql: string
  tokens: Token[]
}

/** The query's statements, split at top-level `;` (empty ones dropped). */
export function splitStatements(query: string): Statement[] {
  const statements: Statement[] = []
  let current: Token[] = []
  const flush = () => {
    if (current.length > 0) {
      statements.push({
        sql: query.slice(current[0].start, current[current.length - 1].end),
        tokens: current,
      })
    }
    current = []
  }
  for (const token of tokenize(query)) {
    if (token.kind === 'semicolon') flush()
    else current.push(token)
  }
  flush()
  return statements
}
