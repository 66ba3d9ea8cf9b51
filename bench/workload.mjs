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

/** Claude Code's TodoWrite list of the ingest scenarios: the five items, the `k`-th in progress. */
const hookTodos = (k) =>
  TODO_ITEMS.map((item, i) => ({
    content: item.text,
    status: i < k ? 'completed' : i === k ? 'in_progress' : 'pending',
    activeForm: `Working on task ${i + 1}`,
  }))

/** The five lists a session's deliveries cycle through, as JSON text (built once). */
const HOOK_LISTS = [0, 1, 2, 3, 4].map((k) => JSON.stringify(hookTodos(k)))

/** A Claude Code session id of the ingest scenarios (a UUID, as Claude writes them). */
const claudeSession = (sid) => `0b6c7a8e-5d3f-4b1e-9a44-${sid.padStart(12, '0')}`

/**
 * A Claude Code `PostToolUse` hook input of a TodoWrite call (the shape of
 * test/fixtures/ingest/claude-code/todowrite.hooks.json): list `k` of the cycle, after list
 * `k - 1`.
 */
function hookBody(sid, toolUseId, k) {
  const session = claudeSession(sid)
  const before = k === 0 ? '[]' : HOOK_LISTS[k - 1]
  return `{"session_id":"${session}","transcript_path":"/home/user/.claude/projects/-home-user-project/${session}.jsonl","cwd":"/home/user/project","prompt_id":"5eb9be95-3bf5-4200-aa47-d538188e20e8","permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{"todos":${HOOK_LISTS[k]}},"tool_response":{"oldTodos":${before},"newTodos":${HOOK_LISTS[k]}},"tool_use_id":"${toolUseId}","duration_ms":1}`
}

/** Deliveries so far per session of `ingest-todo` (this client process): the next list. */
const hookCount = new Map()
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
/** A new id shaped like Claude's (`toolu_01` and 22 random characters). */
function toolUseId() {
  let id = 'toolu_01'
  for (let i = 0; i < 22; i++) id += BASE62[(Math.random() * 62) | 0]
  return id
}

/**
 * The scenarios every target is driven with: method, body (or `bodyFor(sid)`, one per request),
 * the route for a session id, the session prefix it draws from (`POOL` sessions), the status that
 * counts as success, and `seed`: each session is sent its body once before the scenario runs.
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
  // ingest: a new call each delivery (a fresh tool_use_id), and the list moves on one step from
  // the session's last one, so every delivery is applied and stored, as every round is
  'ingest-todo': {
    label: 'Claude Code PostToolUse hook, TodoWrite, a new call',
    method: 'POST',
    body: hookBody('h0', 'toolu_01A09q90qw90lq917835lq9a', 1),
    bodyFor: (sid) => {
      const n = hookCount.get(sid) ?? 0
      hookCount.set(sid, n + 1)
      return hookBody(sid, toolUseId(), n % 5)
    },
    route: () => '/v1/ingest/claude-code',
    prefix: 'h',
    expect: 200,
  },
  // the same delivery again (a retried hook): the call id is known, nothing is applied or written
  'ingest-dup': {
    label: 'the same PostToolUse hook again (a duplicate delivery)',
    method: 'POST',
    body: hookBody('d0', 'toolu_01Dup00000000000000000d0', 1),
    bodyFor: (sid) => hookBody(sid, `toolu_01Dup${sid.padStart(19, '0')}`, 1),
    // each session first gets the delivery once (bench/client.mjs seeds it)
    seed: true,
    route: () => '/v1/ingest/claude-code',
    prefix: 'd',
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

/** What `npm run bench` drives by default: the rounds and reads (ingest: `bench/ingest.mjs`). */
export const ROUND_SCENARIOS = ['round-todo', 'round-other', 'get-200', 'get-304']
