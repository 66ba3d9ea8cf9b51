/**
 * @module dialects/codex-plan/texts
 * Codex's own description of update_plan.
 */

export const DESCRIPTION = `Updates the task plan.
Provide an optional explanation and a list of plan items, each with a step and status.
At most one step can be in_progress at a time.
`
