import { query } from '@anthropic-ai/claude-agent-sdk'
import { forward } from './forward.js'

for await (const message of forward(
  query({
    prompt: process.argv[2] ?? 'Add a /health endpoint',
    options: { env: { ...process.env, CLAUDE_CODE_ENABLE_TODO_TOOLS: '1' } },
  })
)) {
  if (message.type === 'result') console.log(message.subtype)
}
