/**
 * `node --import <this file>`: a bare import that the importing file's own node_modules cannot
 * satisfy is resolved from test/agents/, where the test-only packages live. It lets the
 * real-agent tests run a documented example as it is (examples/observe/claude-agent-sdk/main.ts
 * imports @anthropic-ai/claude-agent-sdk, which the root package does not install).
 */
import { register } from 'node:module'

register('./resolve-here-hooks.mjs', import.meta.url)
