import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { codexPlan, parseUpdatePlanArguments, renderCodexPlan } from './index.js'
import { makeItem } from '../../core/items.js'
import { formatTool } from '../../tools/formats.js'
import { dialectKit, fieldsOf, jsonCall } from '../../../test/dialect-support.js'
import { makeTestApp, round } from '../../../test/helpers.js'

/** Codex 0.171.0's `update_plan` spec (openai/codex `codex-rs/protocol/src/plan_tool.rs`). */
const NATIVE_TOOL = {
  type: 'function',
  name: 'update_plan',
  strict: false,
  description:
    'Updates the task plan.\nProvide an optional explanation and a list of plan items, each with a step and status.\nAt most one step can be in_progress at a time.\n',
  parameters: {
    type: 'object',
    properties: {
      explanation: { type: 'string', description: 'Optional explanation for this plan update.' },
      plan: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            step: { type: 'string', description: 'Task step text.' },
            status: {
              type: 'string',
              enum: ['pending', 'in_progress', 'completed'],
              description: 'Step status.',
            },
          },
          required: ['step', 'status'],
          additionalProperties: false,
        },
        description: 'The list of steps',
      },
    },
    required: ['plan'],
    additionalProperties: false,
  },
}

const kit = dialectKit(codexPlan, 'update_plan')
const { apply, errorOf, http } = kit
const step = (s: string, status = 'pending') => ({ step: s, status })
/** A round's update_plan call of these steps. */
const update = (...plan: object[]) => ({ name: 'update_plan', input: { plan } })

describe('codex-plan tool definition', () => {
  it('Should be the native update_plan spec', () => {
    assert.deepEqual(formatTool(codexPlan.tools[0], 'openai-responses'), NATIVE_TOOL)
  })

  it('Should be served by GET /v1/tools in the OpenAI format', async () => {
    const { tools } = await http.tools('openai')
    assert.deepEqual(tools, [
      {
        type: 'function',
        function: {
          name: NATIVE_TOOL.name,
          description: NATIVE_TOOL.description,
          parameters: NATIVE_TOOL.parameters,
        },
      },
    ])
  })
})

describe('codex-plan update_plan', () => {
  it('Should answer `Plan updated` and hand the PlanUpdate payload as structured output', () => {
    const outcome = apply({
      explanation: 'Start with the parser',
      plan: [step('Read the spec', 'completed'), step('Implement parser', 'in_progress')],
    })
    assert.equal(outcome.result.is_error, false)
    assert.equal(outcome.result.content, 'Plan updated')
    assert.deepEqual(outcome.result.structured, {
      explanation: 'Start with the parser',
      plan: [step('Read the spec', 'completed'), step('Implement parser', 'in_progress')],
    })
    assert.deepEqual(fieldsOf(outcome.state.items, 'id', 'content', 'status'), [
      ['1', 'Read the spec', 'completed'],
      ['2', 'Implement parser', 'in_progress'],
    ])
  })

  it('Should give an absent or null explanation as null', () => {
    assert.deepEqual(apply({ plan: [] }).result.structured, { explanation: null, plan: [] })
    assert.deepEqual(apply({ explanation: null, plan: [] }).result.structured, {
      explanation: null,
      plan: [],
    })
  })

  it('Should not enforce one in_progress step (the native only asks for it)', () => {
    const outcome = apply({ plan: [step('a', 'in_progress'), step('b', 'in_progress')] })
    assert.equal(outcome.result.content, 'Plan updated')
  })
})

describe('codex-plan parse errors, as serde_json reports them', () => {
  it('Should report a missing plan', () => {
    assert.equal(
      errorOf({}),
      'failed to parse function arguments: missing field `plan` at line 1 column 2'
    )
  })

  it('Should report an unknown status as an unknown variant', () => {
    assert.equal(
      errorOf({ plan: [step('a', 'done')] }),
      'failed to parse function arguments: unknown variant `done`, expected one of `pending`, `in_progress`, `completed` at line 1 column 36'
    )
    assert.equal(
      errorOf({ plan: [step('a', 'cancelled')] }),
      'failed to parse function arguments: unknown variant `cancelled`, expected one of `pending`, `in_progress`, `completed` at line 1 column 41'
    )
  })

  it('Should deny unknown fields at both levels', () => {
    assert.equal(
      errorOf({ plan: [], note: 'x' }),
      'failed to parse function arguments: unknown field `note`, expected `explanation` or `plan` at line 1 column 17'
    )
    assert.equal(
      errorOf({ plan: [{ step: 'a', status: 'pending', activeForm: 'A-ing' }] }),
      'failed to parse function arguments: unknown field `activeForm`, expected `step` or `status` at line 1 column 52'
    )
  })

  it('Should refuse a plan sent as a JSON string, as serde does', () => {
    assert.equal(
      errorOf({ plan: '[]' }),
      'failed to parse function arguments: invalid type: string "[]", expected a sequence at line 1 column 12'
    )
  })

  it('Should name wrong types the serde way', () => {
    assert.equal(
      errorOf({ plan: [{ step: 1, status: 'pending' }] }),
      'failed to parse function arguments: invalid type: integer `1`, expected a string at line 1 column 18'
    )
    assert.equal(
      errorOf({ plan: [{ step: 'a' }] }),
      'failed to parse function arguments: missing field `status` at line 1 column 21'
    )
    // Codex builds serde_json with arbitrary_precision: a float is `number` (the real CLI's own
    // texts in test/fixtures/native/codex-update-plan.json), not plain serde's `floating point`
    assert.equal(
      errorOf({ explanation: 2.5, plan: [] }),
      'failed to parse function arguments: invalid type: number, expected a string at line 1 column 18'
    )
    assert.equal(
      errorOf({ plan: [step('a', null as unknown as string)] }),
      'failed to parse function arguments: expected value at line 1 column 31'
    )
  })

  it('Should report syntax errors of raw arguments with their position', () => {
    assert.deepEqual(parseUpdatePlanArguments('{"plan": []}'), {
      ok: true,
      args: { plan: [], explanation: null },
    })
    assert.equal(
      codexPlan.argumentsError('update_plan', '{"plan": [}'),
      'failed to parse function arguments: expected value at line 1 column 11'
    )
    assert.equal(
      codexPlan.argumentsError('update_plan', '{"plan":[],}'),
      'failed to parse function arguments: trailing comma at line 1 column 12'
    )
    assert.equal(
      codexPlan.argumentsError('update_plan', '{\n  "plan": [\n'),
      'failed to parse function arguments: EOF while parsing a list at line 3 column 0'
    )
  })
})

describe('codex-plan arguments as sent', () => {
  const roundWith = async (args: string) => {
    const { res } = await http.firstRound('raw', [
      { id: 'c1', name: 'update_plan', arguments: args },
    ])
    return res.body.results[0]
  }

  /** The error text of a round's call with these arguments, asserted refused. */
  const errorOfArguments = async (args: string) => {
    const result = await roundWith(args)
    assert.equal(result.is_error, true)
    return result.content
  }

  it('Should count serde error columns on the arguments text as the model sent it', async () => {
    // column 40 of the text sent; its compact re-serialisation would put it at 36
    assert.equal(
      await errorOfArguments('{"plan": [{"step": "a", "status": "done"}]}'),
      'failed to parse function arguments: unknown variant `done`, expected one of `pending`, `in_progress`, `completed` at line 1 column 40'
    )
  })

  it('Should refuse a repeated key as serde does', async () => {
    assert.equal(
      await errorOfArguments('{"plan": [], "plan": [{"step": "a", "status": "pending"}]}'),
      'failed to parse function arguments: duplicate field `plan` at line 1 column 19'
    )
  })

  it('Should read explanation: null as no explanation', async () => {
    const result = await roundWith('{"explanation": null, "plan": []}')
    assert.equal(result.is_error, false)
    assert.deepEqual(result.structured, { explanation: null, plan: [] })
  })
})

describe('codex-plan identity and dropped items', () => {
  it('Should keep ids across a reordering rewrite and report dropped unfinished steps', () => {
    const first = apply({
      plan: [step('A'), step('B', 'in_progress'), step('C'), step('D', 'completed')],
    })
    const second = apply({ plan: [step('C'), step('A', 'in_progress'), step('E')] }, first.state)
    assert.deepEqual(fieldsOf(second.state.items, 'content', 'id'), [
      ['C', '3'],
      ['A', '1'],
      ['E', '5'],
    ])
    // B was unfinished and is gone; D was completed, so dropping it loses nothing
    assert.deepEqual(fieldsOf(second.dropped, 'id', 'content'), [['2', 'B']])
  })
})

describe('codex-plan list rules and rendering', () => {
  const item = (
    id: string,
    content: string,
    status: 'pending' | 'in_progress' | 'completed' | 'cancelled'
  ) => makeItem({ id, content, status })

  it('Should accept a list of its statuses, several in progress included', () => {
    const check = codexPlan.checkList([
      item('1', 'a', 'in_progress'),
      item('2', 'b', 'in_progress'),
    ])
    assert.equal(check.ok, true)
  })

  it('Should refuse a status Codex does not know, with its parse error', () => {
    kit.assertListRefused(
      [item('1', 'a', 'cancelled')],
      'failed to parse function arguments: unknown variant `cancelled`, expected one of `pending`, `in_progress`, `completed` at line 1 column 41'
    )
  })

  it('Should render a checklist', () => {
    assert.equal(
      renderCodexPlan([
        item('1', 'Read the spec', 'completed'),
        item('2', 'Parse', 'in_progress'),
        item('3', 'Test', 'pending'),
      ]),
      '[x] Read the spec\n[>] Parse\n[ ] Test\n\n(1/3 completed)'
    )
    assert.equal(renderCodexPlan([]), 'No plan.')
  })
})

describe('codex-plan over HTTP', () => {
  it('Should apply update_plan in a round mixed with other tools', async () => {
    const { res } = await http.firstRound('cx1', [
      { id: 'call_1', name: 'shell', arguments: '{"command":["ls"]}' },
      jsonCall('call_2', 'update_plan', { plan: [step('Explore', 'in_progress'), step('Fix')] }),
      { id: 'call_3', name: 'apply_patch' },
    ])
    assert.equal(res.body.dialect, 'codex-plan')
    assert.deepEqual(res.body.results, [
      {
        tool_use_id: 'call_2',
        name: 'update_plan',
        is_error: false,
        content: 'Plan updated',
        structured: { explanation: null, plan: [step('Explore', 'in_progress'), step('Fix')] },
      },
    ])
    assert.equal(res.body.used_todo, true)
    assert.deepEqual(res.body.dropped, [])
    assert.equal(res.body.progress.in_progress, 1)
  })

  it('Should answer a bad call with is_error and leave the list unchanged', async () => {
    const { t, res } = await http.secondRound(
      'cx2',
      [{ id: 'a', ...update(step('A')) }],
      [
        { id: 'b', ...update(step('A', 'finished')) },
        { id: 'c', name: 'update_plan', arguments: '{"plan": [' },
      ]
    )
    assert.deepEqual(fieldsOf(res.body.results, 'is_error', 'content'), [
      [
        true,
        'failed to parse function arguments: unknown variant `finished`, expected one of `pending`, `in_progress`, `completed` at line 1 column 40',
      ],
      [true, 'failed to parse function arguments: EOF while parsing a list at line 1 column 10'],
    ])
    assert.deepEqual(fieldsOf((await http.view(t, 'cx2')).items, 'content', 'status'), [
      ['A', 'pending'],
    ])
  })

  it('Should report dropped steps and keep ids through a reorder over HTTP', async () => {
    const t = await http.reorder('cx3', (contents) => update(...contents.map((c) => step(c))))
    const session = await http.view(t, 'cx3')
    assert.deepEqual(fieldsOf(session.items, 'id'), [['3'], ['1']])
    assert.equal(session.rendered, '[ ] C\n[ ] A\n\n(0/2 completed)')
  })

  it('Should remind after 3 rounds without update_plan, every round until called', async () => {
    const t = await http.afterRound('cx4', [update(step('A'))])
    const text = { text: '<reminder>Update your plan with update_plan.</reminder>' }
    assert.deepEqual(await http.reminders(t, 'cx4', 4, 'shell'), [null, null, text, text])
    const after = await round(t, 'cx4', [update(step('A'))])
    assert.equal(after.body.reminder, null)
  })

  it('Should check an operator list by Codex rules on PUT', async () => {
    const t = makeTestApp()
    const detail = await http.refusedPut(t, 'cx5', {
      dialect: 'codex-plan',
      items: [{ id: '1', content: 'A', status: 'blocked' }],
    })
    assert.match(detail, /^failed to parse function arguments: unknown variant `blocked`/)
    const ok = await t.call('PUT', '/v1/sessions/cx5/todos', {
      dialect: 'codex-plan',
      items: [{ id: '1', content: 'A', status: 'in_progress' }],
    })
    assert.equal(ok.status, 200)
    assert.equal(ok.body.rendered, '[>] A\n\n(0/1 completed)')
  })
})
