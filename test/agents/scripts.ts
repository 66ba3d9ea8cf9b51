/**
 * The scripted conversations the model stand-in plays (model-api.ts). Turn n is played once the
 * calls of turns 0..n-1 all have their tool results, so a retried request replays its turn.
 * Each script exercises the agent's own todo tool, including a call the tool refuses, so the
 * tests can check that the service applied only what the agent accepted.
 */

export interface ScriptCall {
  name: string
  input: Record<string, unknown>
  /** Responses API: the call's arguments text, sent as is (default: `input` as JSON). */
  arguments?: string
}

export interface ScriptTurn {
  text?: string
  calls?: ScriptCall[]
}

export interface Script {
  name: string
  /** The prompt the CLI is started with; it carries `script=<name>`. */
  prompt: string
  turns: ScriptTurn[]
}

const todo = (content: string, status: string, activeForm: string) => ({
  content,
  status,
  activeForm,
})

const script = (name: string, goal: string, turns: ScriptTurn[]): Script => ({
  name,
  prompt: `${goal} (script=${name})`,
  turns,
})

/** Claude Code, TodoWrite mode (CLAUDE_CODE_ENABLE_TASKS=0). */
const claudeTodoWrite = script('claude-todowrite', 'Add a /health endpoint with a test.', [
  {
    text: 'I will plan this first.',
    calls: [{ name: 'ToolSearch', input: { query: 'select:TodoWrite' } }],
  },
  {
    calls: [
      {
        name: 'TodoWrite',
        input: {
          todos: [
            todo('Write the /health handler', 'in_progress', 'Writing the /health handler'),
            todo('Add a test for /health', 'pending', 'Adding a test for /health'),
            todo('Update the README', 'pending', 'Updating the README'),
          ],
        },
      },
    ],
  },
  {
    calls: [
      {
        name: 'TodoWrite',
        input: {
          todos: [
            todo('Write the /health handler', 'completed', 'Writing the /health handler'),
            todo('Add a test for /health', 'in_progress', 'Adding a test for /health'),
            todo('Update the README', 'pending', 'Updating the README'),
          ],
        },
      },
    ],
  },
  {
    // refused by the tool (activeForm missing): the list must stay as it was
    calls: [
      {
        name: 'TodoWrite',
        input: {
          todos: [
            { content: 'Write the /health handler', status: 'completed' },
            { content: 'Add a test for /health', status: 'completed' },
          ],
        },
      },
    ],
  },
  {
    calls: [
      {
        name: 'TodoWrite',
        input: {
          todos: [
            todo('Write the /health handler', 'completed', 'Writing the /health handler'),
            todo('Add a test for /health', 'completed', 'Adding a test for /health'),
            todo('Update the README', 'completed', 'Updating the README'),
          ],
        },
      },
    ],
  },
  { text: 'All three steps are done.' },
])

/** Claude Code, Tasks mode (CLAUDE_CODE_ENABLE_TASKS=1). */
const claudeTasks = script('claude-tasks', 'Add a /health endpoint with a test, as tasks.', [
  {
    text: 'I will track this as tasks.',
    calls: [{ name: 'ToolSearch', input: { query: 'select:TaskCreate,TaskUpdate,TaskList' } }],
  },
  {
    calls: [
      {
        name: 'TaskCreate',
        input: {
          subject: 'Write the /health handler',
          description: 'GET /health answers 200 {"ok":true}',
          activeForm: 'Writing the /health handler',
        },
      },
      {
        name: 'TaskCreate',
        input: {
          subject: 'Add a test for /health',
          description: 'node:test against app.request()',
          activeForm: 'Adding a test for /health',
        },
      },
    ],
  },
  {
    calls: [
      {
        name: 'TaskCreate',
        input: { subject: 'Update the README', description: 'Mention /health' },
      },
      { name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress' } },
    ],
  },
  {
    calls: [
      { name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } },
      { name: 'TaskUpdate', input: { taskId: '2', status: 'in_progress', addBlockedBy: ['1'] } },
      { name: 'TaskUpdate', input: { taskId: '3', status: 'deleted' } },
    ],
  },
  {
    // an unknown id: Claude answers "Task not found" without is_error, and nothing changes
    calls: [{ name: 'TaskUpdate', input: { taskId: '99', status: 'completed' } }],
  },
  {
    // the key as models often spell it: Claude Code repairs task_id to taskId
    calls: [{ name: 'TaskUpdate', input: { task_id: '2', status: 'completed' } }],
  },
  { calls: [{ name: 'TaskList', input: {} }] },
  { text: 'Both tasks are done.' },
])

/** Claude Code with a subagent that keeps its own TodoWrite list. */
const claudeSubagent = script('claude-subagent', 'Review the repository with a helper.', [
  { calls: [{ name: 'ToolSearch', input: { query: 'select:TodoWrite' } }] },
  {
    calls: [
      {
        name: 'TodoWrite',
        input: {
          todos: [
            todo('Ask a helper to review', 'in_progress', 'Asking a helper to review'),
            todo('Summarize the review', 'pending', 'Summarizing the review'),
          ],
        },
      },
    ],
  },
  {
    calls: [
      {
        name: 'Agent',
        input: {
          description: 'Review the repository',
          prompt: 'Review the repository and report. (script=claude-subagent-child)',
          subagent_type: 'general-purpose',
          run_in_background: false,
        },
      },
    ],
  },
  {
    calls: [
      {
        name: 'TodoWrite',
        input: {
          todos: [
            todo('Ask a helper to review', 'completed', 'Asking a helper to review'),
            todo('Summarize the review', 'completed', 'Summarizing the review'),
          ],
        },
      },
    ],
  },
  { text: 'The review is summarized.' },
])

const claudeSubagentChild = script('claude-subagent-child', 'Review the repository.', [
  { calls: [{ name: 'ToolSearch', input: { query: 'select:TodoWrite' } }] },
  {
    calls: [
      {
        name: 'TodoWrite',
        input: {
          todos: [
            todo('Read the source', 'in_progress', 'Reading the source'),
            todo('Write the findings', 'pending', 'Writing the findings'),
          ],
        },
      },
    ],
  },
  {
    calls: [
      {
        name: 'TodoWrite',
        input: {
          todos: [
            todo('Read the source', 'completed', 'Reading the source'),
            todo('Write the findings', 'in_progress', 'Writing the findings'),
          ],
        },
      },
    ],
  },
  { text: 'Findings: nothing to report.' },
])

/** Claude Code stopped by --max-turns 3 with a task still in progress. */
const claudeMaxTurns = script('claude-max-turns', 'Refactor the parser.', [
  { calls: [{ name: 'ToolSearch', input: { query: 'select:TodoWrite' } }] },
  {
    calls: [
      {
        name: 'TodoWrite',
        input: {
          todos: [
            todo('Split the parser', 'in_progress', 'Splitting the parser'),
            todo('Run the tests', 'pending', 'Running the tests'),
          ],
        },
      },
    ],
  },
  {
    calls: [
      {
        name: 'TodoWrite',
        input: {
          todos: [
            todo('Split the parser', 'completed', 'Splitting the parser'),
            todo('Run the tests', 'in_progress', 'Running the tests'),
          ],
        },
      },
    ],
  },
  // never reached: the run stops before this turn
  {
    calls: [
      {
        name: 'TodoWrite',
        input: {
          todos: [
            todo('Split the parser', 'completed', 'Splitting the parser'),
            todo('Run the tests', 'completed', 'Running the tests'),
          ],
        },
      },
    ],
  },
  { text: 'Done.' },
])

const step = (text: string, status: string) => ({ step: text, status })

/** Codex `update_plan` ([tools.update_plan] enabled = true). */
const codexPlan = script('codex-plan', 'Add a /health endpoint with a test.', [
  {
    text: 'Planning.',
    calls: [
      {
        name: 'update_plan',
        input: {
          explanation: 'Three steps',
          plan: [
            step('Write the /health handler', 'in_progress'),
            step('Add a test for /health', 'pending'),
            step('Update the README', 'pending'),
          ],
        },
      },
    ],
  },
  {
    calls: [
      {
        name: 'update_plan',
        input: {
          plan: [
            step('Write the /health handler', 'completed'),
            step('Add a test for /health', 'in_progress'),
            step('Update the README', 'pending'),
          ],
        },
      },
    ],
  },
  {
    // refused by Codex (unknown status): the plan must stay as it was
    calls: [
      {
        name: 'update_plan',
        input: { plan: [step('Write the /health handler', 'doing')] },
      },
    ],
  },
  {
    calls: [
      {
        name: 'update_plan',
        input: {
          plan: [
            step('Write the /health handler', 'completed'),
            step('Add a test for /health', 'completed'),
            step('Update the README', 'completed'),
          ],
        },
      },
    ],
  },
  { text: 'All three steps are done.' },
])

const gtodo = (description: string, status: string) => ({ description, status })

/** Gemini CLI `write_todos` (gemini-2.5-pro, task tracker off). */
const geminiTodos = script('gemini-todos', 'Add a /health endpoint with a test.', [
  {
    calls: [
      {
        name: 'write_todos',
        input: {
          todos: [
            gtodo('Write the /health handler', 'in_progress'),
            gtodo('Add a test for /health', 'pending'),
            gtodo('Update the README', 'pending'),
          ],
        },
      },
    ],
  },
  {
    // refused by Gemini (two in_progress): the list must stay as it was
    calls: [
      {
        name: 'write_todos',
        input: {
          todos: [
            gtodo('Write the /health handler', 'in_progress'),
            gtodo('Add a test for /health', 'in_progress'),
            gtodo('Update the README', 'pending'),
          ],
        },
      },
    ],
  },
  {
    calls: [
      {
        name: 'write_todos',
        input: {
          todos: [
            gtodo('Write the /health handler', 'completed'),
            gtodo('Add a test for /health', 'in_progress'),
            gtodo('Update the README', 'cancelled'),
          ],
        },
      },
    ],
  },
  {
    calls: [
      {
        name: 'write_todos',
        input: {
          todos: [
            gtodo('Write the /health handler', 'completed'),
            gtodo('Add a test for /health', 'completed'),
            gtodo('Update the README', 'cancelled'),
          ],
        },
      },
    ],
  },
  { text: 'Done: the endpoint and its test; the README needs no change.' },
])

/** Every script by name. */
export const SCRIPTS: Record<string, Script> = Object.fromEntries(
  [
    claudeTodoWrite,
    claudeTasks,
    claudeSubagent,
    claudeSubagentChild,
    claudeMaxTurns,
    codexPlan,
    geminiTodos,
  ].map((s) => [s.name, s])
)
