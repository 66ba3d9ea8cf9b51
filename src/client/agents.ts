// Generated from src/agents by `npm run client` (scripts/agents-data.ts): do not edit.

/** The observed agents by `source`: names, badges, routes, session prefix. */
export const AGENTS = {
  'claude-code': {
    source: 'claude-code',
    name: 'Claude Code',
    label: 'Claude Code',
    terminal: 'Claude Code',
    short: 'claude',
    prefix: 'claude',
    routes: ['/v1/ingest/claude-code'],
    todoToolsSwitch: 'CLAUDE_CODE_ENABLE_TODO_TOOLS=1',
  },
  'claude-agent-sdk': {
    source: 'claude-agent-sdk',
    name: 'Claude Agent SDK',
    label: 'Claude Agent SDK',
    terminal: 'Claude SDK',
    short: 'sdk',
    prefix: 'claude',
    routes: ['/v1/ingest/claude-agent-sdk'],
    todoToolsSwitch: 'CLAUDE_CODE_ENABLE_TODO_TOOLS=1',
  },
  codex: {
    source: 'codex',
    name: 'Codex CLI',
    label: 'Codex',
    terminal: 'Codex',
    short: 'codex',
    prefix: 'codex',
    routes: ['/v1/ingest/codex'],
    todoToolsSwitch: null,
  },
  'gemini-cli': {
    source: 'gemini-cli',
    name: 'Gemini CLI',
    label: 'Gemini CLI',
    terminal: 'Gemini CLI',
    short: 'gemini',
    prefix: 'gemini',
    routes: ['/v1/ingest/gemini-cli'],
    todoToolsSwitch: null,
  },
  openhands: {
    source: 'openhands',
    name: 'OpenHands',
    label: 'OpenHands',
    terminal: 'OpenHands',
    short: 'ohands',
    prefix: 'openhands',
    routes: ['/v1/ingest/openhands/events/{conversation_id}', '/v1/ingest/openhands/conversations'],
    todoToolsSwitch: null,
  },
  'qwen-code': {
    source: 'qwen-code',
    name: 'Qwen Code',
    label: 'Qwen Code',
    terminal: 'Qwen Code',
    short: 'qwen',
    prefix: 'qwen',
    routes: ['/v1/ingest/qwen-code'],
    todoToolsSwitch: 'tools.todoWrite.enabled',
  },
  opencode: {
    source: 'opencode',
    name: 'opencode',
    label: 'opencode',
    terminal: 'opencode',
    short: 'opencode',
    prefix: 'opencode',
    routes: ['/v1/ingest/opencode'],
    todoToolsSwitch: null,
  },
  kilo: {
    source: 'kilo',
    name: 'Kilo CLI',
    label: 'Kilo CLI',
    terminal: 'Kilo CLI',
    short: 'kilo',
    prefix: 'kilo',
    routes: [],
    todoToolsSwitch: null,
  },
  acp: {
    source: 'acp',
    name: 'ACP agent',
    label: 'ACP agent',
    terminal: 'ACP agent',
    short: 'acp',
    prefix: 'acp',
    routes: ['/v1/ingest/acp'],
    todoToolsSwitch: null,
  },
  copilot: {
    source: 'copilot',
    name: 'GitHub Copilot CLI',
    label: 'Copilot CLI',
    terminal: 'Copilot CLI',
    short: 'copilot',
    prefix: 'copilot',
    routes: ['/v1/ingest/copilot'],
    todoToolsSwitch: null,
  },
  otlp: {
    source: 'otlp',
    name: 'OpenTelemetry (Claude Code, Codex CLI, Gemini CLI)',
    label: 'otlp',
    terminal: 'otlp',
    short: 'otlp',
    prefix: 'claude',
    routes: [],
    todoToolsSwitch: null,
  },
} as const satisfies Record<string, AgentData>

/** What a client knows of one observed agent. */
export interface AgentData {
  source: string
  name: string
  /** The badge. */
  label: string
  /** A terminal's wide badge. */
  terminal: string
  /** A narrow terminal's badge. */
  short: string
  prefix: string
  routes: readonly string[]
  /** What turns its todo tools on, when they can be off. */
  todoToolsSwitch: string | null
}

/** The agents `agent-todos observe` runs, by kind: the route of their stream, their prefix, their programs. */
export const OBSERVE_AGENTS = {
  claude: {
    route: '/v1/ingest/claude-agent-sdk',
    prefix: 'claude',
    programs: ['claude', 'claude-code', '@anthropic-ai/claude-code'],
  },
  codex: {
    route: '/v1/ingest/codex',
    prefix: 'codex',
    programs: ['codex', '@openai/codex'],
  },
  gemini: {
    route: '/v1/ingest/gemini-cli',
    prefix: 'gemini',
    programs: ['gemini', 'gemini-cli', '@google/gemini-cli'],
  },
  qwen: {
    route: '/v1/ingest/qwen-code',
    prefix: 'qwen',
    programs: ['qwen', 'qwen-code', '@qwen-code/qwen-code'],
  },
} as const
