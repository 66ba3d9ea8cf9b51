/**
 * Typecheck only (tsconfig.providers.json, and the SDK test in
 * test/integration/tool-formats-sdk.test.ts): what `GET /v1/tools` returns through the typed
 * client goes into the providers' SDK calls without a cast. It lives in test/agents/ so that the
 * SDKs resolve from test/agents/node_modules.
 */
import type Anthropic from '@anthropic-ai/sdk'
import type { GoogleGenAI } from '@google/genai'
import type OpenAI from 'openai'
import { listTools, type AgentTodosClient } from '../../src/client/index.js'

/** Chat Completions, strict and not. */
export async function chatCompletions(openai: OpenAI, todos: AgentTodosClient) {
  const tools = await listTools(todos, { dialect: 'codex-plan', format: 'openai' })
  const strict = await listTools(todos, { dialect: 'claude-tasks', format: 'openai', strict: true })
  await openai.chat.completions.create({ model: 'gpt-5', messages: [], tools })
  return openai.chat.completions.create({ model: 'gpt-5', messages: [], tools: strict })
}

/** The Responses API. */
export async function responses(openai: OpenAI, todos: AgentTodosClient) {
  const tools = await listTools(todos, { dialect: 'codex-plan', format: 'openai-responses' })
  return openai.responses.create({ model: 'gpt-5', input: 'plan it', tools })
}

/** The Messages API, through the helper and through the raw client narrowed by `format`. */
export async function messages(anthropic: Anthropic, todos: AgentTodosClient) {
  const tools = await listTools(todos, { dialect: 'claude-tasks', format: 'anthropic' })
  await anthropic.messages.create({ model: 'claude-x', max_tokens: 1, messages: [], tools })
  const { data } = await todos.GET('/v1/tools', {
    params: { query: { dialect: 's03', format: 'anthropic' } },
  })
  if (data?.format === 'anthropic') {
    await anthropic.messages.create({
      model: 'claude-x',
      max_tokens: 1,
      messages: [],
      tools: data.tools,
    })
  }
}

/** Gemini function declarations. */
export async function gemini(genai: GoogleGenAI, todos: AgentTodosClient) {
  const functionDeclarations = await listTools(todos, { dialect: 'gemini-todos', format: 'gemini' })
  return genai.models.generateContent({
    model: 'gemini-3',
    contents: 'plan it',
    config: { tools: [{ functionDeclarations }] },
  })
}
