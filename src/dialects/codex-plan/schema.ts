/**
 * @module dialects/codex-plan/schema
 * Codex's update_plan input schema (zod) and its serde shape.
 */
import { z } from 'zod'
import { type StructSpec } from '../native/serde-json.js'

const STEP_STATUSES = ['pending', 'in_progress', 'completed'] as const

/** The advertised input schema of `update_plan`, the native's `update_plan_input_schema()`. */
export const UpdatePlanInput = z.strictObject({
  explanation: z.string().describe('Optional explanation for this plan update.').optional(),
  plan: z
    .array(
      z.strictObject({
        step: z.string().describe('Task step text.'),
        status: z.enum(STEP_STATUSES).describe('Step status.'),
      })
    )
    .describe('The list of steps'),
})

interface PlanItemArg {
  step: string
  status: (typeof STEP_STATUSES)[number]
}

export interface UpdatePlanArgs {
  explanation: string | null
  plan: PlanItemArg[]
}

const PLAN_ITEM_ARG: StructSpec = {
  name: 'PlanItemArg',
  fields: [
    { name: 'step', de: (de) => de.string() },
    { name: 'status', de: (de) => de.unitEnum(STEP_STATUSES) },
  ],
}

export const UPDATE_PLAN_ARGS: StructSpec = {
  name: 'UpdatePlanArgs',
  fields: [
    { name: 'explanation', de: (de) => de.option((d) => d.string()), default: () => null },
    { name: 'plan', de: (de) => de.seq((d) => d.struct(PLAN_ITEM_ARG)) },
  ],
}
