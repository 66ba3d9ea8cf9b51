/**
 * Module hooks for the adapters' tests (test/e2e/adapters-*.test.ts): `agent-todos-client` and
 * its adapter subpaths resolve to src/client, as the built package's exports map them, so the
 * examples run as the documentation shows them; a bare import that the importing file's own
 * node_modules cannot satisfy (the frameworks, optional peers installed in test/agents/ only) is
 * resolved from test/agents/.
 */
const ROOT = new URL('../../', import.meta.url)
const AGENTS = new URL('test/agents/package.json', ROOT).href
const CLIENT = {
  'agent-todos-client': 'src/client/index.ts',
  'agent-todos-client/langchain': 'src/client/adapters/langchain.ts',
  'agent-todos-client/ai-sdk': 'src/client/adapters/ai-sdk.ts',
  'agent-todos-client/openai-agents': 'src/client/adapters/openai-agents.ts',
}

const isBare = (specifier) => !/^[./]/.test(specifier) && !/^[a-z][a-z0-9+.-]*:/i.test(specifier)

/** Node's resolve hook. */
export async function resolve(specifier, context, nextResolve) {
  if (Object.hasOwn(CLIENT, specifier))
    return nextResolve(new URL(CLIENT[specifier], ROOT).href, context)
  try {
    return await nextResolve(specifier, context)
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !isBare(specifier)) throw error
    return nextResolve(specifier, { ...context, parentURL: AGENTS })
  }
}
