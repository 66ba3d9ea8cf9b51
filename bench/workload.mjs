// The benchmark's requests, shared by the client (bench/client.mjs) and the ceiling server
// (bench/ceiling.mjs) so that both sides of every ratio parse and answer the same bytes.

const WORDS =
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango'.split(
    ' '
  )
const STATUSES = ['completed', 'completed', 'in_progress', 'pending', 'pending']

/** Five s03 items of about 150 characters each, exactly one in_progress (about 1 KB of JSON). */
export const TODO_ITEMS = STATUSES.map((status, i) => {
  let text = `Task ${i + 1}:`
  for (let w = 0; text.length < 150; w++) text += ' ' + WORDS[(i * 7 + w) % WORDS.length]
  return { id: String(i + 1), text, status }
})

/** s03 round with a 5-item todo write. */
export const ROUND_TODO_BODY = JSON.stringify({
  tool_calls: [{ id: 'toolu_01', name: 'todo', input: { items: TODO_ITEMS } }],
})

/** A round with only other tools: nothing for the todo tool, the reminder counters move. */
export const ROUND_OTHER_BODY = JSON.stringify({
  tool_calls: [
    { id: 'toolu_02', name: 'bash', input: { command: 'python hello.py' } },
    { id: 'toolu_03', name: 'read_file', input: { path: 'hello.py' } },
  ],
})

/** Session pools: rounds go to `s<n>`, reads to `g<n>` (seeded with exactly one round: version 1). */
export const POOL = 1000

/**
 * The scenarios every target is driven with: method, body, the route for a session id, the
 * session prefix it draws from (`POOL` sessions) and the status that counts as success.
 */
export const SCENARIOS = {
  'round-todo': {
    label: 's03 round, 5-item todo write',
    method: 'POST',
    body: ROUND_TODO_BODY,
    route: (sid) => `/v1/sessions/${sid}/rounds`,
    prefix: 's',
    expect: 200,
  },
  'round-other': {
    label: 'round with only other tools',
    method: 'POST',
    body: ROUND_OTHER_BODY,
    route: (sid) => `/v1/sessions/${sid}/rounds`,
    prefix: 's',
    expect: 200,
  },
  'get-200': {
    label: 'GET session → 200',
    method: 'GET',
    route: (sid) => `/v1/sessions/${sid}`,
    prefix: 'g',
    expect: 200,
  },
  'get-304': {
    label: 'GET session, If-None-Match → 304',
    method: 'GET',
    headers: { 'if-none-match': '"1"' },
    route: (sid) => `/v1/sessions/${sid}`,
    prefix: 'g',
    expect: 304,
  },
}
