/**
 * What the HTTP tests of rounds and sessions share: a todo call, a five-item list, a session
 * seeded with it.
 */
import { makeTestApp, round, type TestApp } from '../helpers.js'

export const todo = (items: unknown, id = 'toolu_1') => ({ id, name: 'todo', input: { items } })
export const five = ['Create file', 'Write f1', 'Write f2', 'Write f3', 'Run it'].map(
  (text, i) => ({
    id: String(i + 1),
    text,
    status: 'pending',
  })
)

/** An app whose session `s1` holds `five`. */
export async function seeded(): Promise<TestApp> {
  const t = makeTestApp()
  await round(t, 's1', [todo(five)])
  return t
}

/** The `params` of a typed request on one session's route. */
export const pathOf = (session_id: string) => ({ params: { path: { session_id } } })
