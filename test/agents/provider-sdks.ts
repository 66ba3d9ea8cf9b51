/**
 * The provider SDK functions that test/integration/tool-formats-sdk.test.ts runs, re-exported
 * from test/agents/ so that they resolve from test/agents/node_modules (the root package does
 * not install the SDKs).
 */
export { toStrictJsonSchema } from 'openai/lib/transform'
export { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema'
