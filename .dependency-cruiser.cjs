/**
 * The layering, as rules that fail CI (`npm run lint`): HTTP (and MCP) → service (the use cases)
 * → ingest, dialects, store, alerts → core, and each layer imports only what is below it.
 * Imports within a layer (a dialect's shared helpers, the registry) are the layer's own business.
 * A test beside its sources (a *.test.ts under src/, as a dialect's in src/dialects/<name>/) is a
 * test like those of test/: the layering binds the code it tests, not the test, which may import
 * test/'s helpers (test/helpers.ts builds the app, test/dialect-support.ts); no other file of src/
 * imports test code.
 */

/** A test file: under src/ (beside its sources) or test/. */
const TEST = '\\.test\\.ts$'

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'src-imports-no-test-code',
      comment:
        "What src/ ships imports nothing of test/ and no test: only a test beside its sources (src/**/*.test.ts) imports test/'s helpers (test/helpers.ts, test/dialect-support.ts).",
      severity: 'error',
      from: { path: '^src/', pathNot: TEST },
      to: { path: `^test/|${TEST}` },
    },
    {
      name: 'no-test-imports-a-test',
      comment:
        'A test file is run by the runner, never imported: the unit shards (test/run-unit.ts) would run an imported one twice. Shared cases go in a helper (test/dialect-support.ts).',
      severity: 'error',
      from: {},
      to: { path: TEST },
    },
    {
      name: 'unit-tests-start-no-process',
      comment:
        "The unit tier (test/unit/, and the tests beside their sources, src/**/*.test.ts) runs in process on the root install alone: a test that starts a process (a child, a worker) is test/integration/'s, as is one that needs test/agents/'s packages.",
      severity: 'error',
      from: { path: `^test/unit/|^src/.*${TEST}` },
      to: { dependencyTypes: ['core'], path: '^(node:)?(child_process|worker_threads|cluster)$' },
    },
    {
      name: 'core-is-pure',
      comment: 'src/core is the pure domain: it imports nothing else of the project.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'core-does-no-io',
      comment:
        'src/core is the pure domain: no Node built-in module (files, network, processes, crypto).',
      severity: 'error',
      from: { path: '^src/core/', pathNot: TEST },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'service-knows-no-http',
      comment:
        'src/service holds the use cases (run a round, edit a list, end, delete, deliver observed events): HTTP and MCP are its adapters, so it imports no framework and nothing of src/http; it uses ingest, dialects, store and alerts, and core.',
      severity: 'error',
      from: { path: '^src/service/', pathNot: TEST },
      to: {
        path: '^src/',
        pathNot: '^src/(core|dialects|ingest|agents|store|alerts|tools|service)/',
      },
    },
    {
      name: 'service-uses-no-web-framework',
      comment: 'A use case takes its dependencies explicitly, never hono or its context.',
      severity: 'error',
      from: { path: '^src/service/', pathNot: TEST },
      to: { path: '^(node_modules/)?(hono|@hono/[^/]+)(/|$)' },
    },
    {
      name: 'nothing-below-the-service-imports-it',
      comment:
        'The layers below the use cases (ingest, dialects, store, alerts, tools, core) are called by them, never the reverse.',
      severity: 'error',
      from: { path: '^src/(core|dialects|ingest|agents|store|alerts|tools)/', pathNot: TEST },
      to: { path: '^src/service/' },
    },
    {
      name: 'dialects-import-only-core',
      comment:
        'A dialect never touches HTTP, storage or ingest: it imports only core (and dialects).',
      severity: 'error',
      from: { path: '^src/dialects/', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/(core|dialects)/' },
    },
    {
      name: 'store-imports-only-core',
      comment: 'A store never knows a dialect or HTTP: it imports only core (and store).',
      severity: 'error',
      from: { path: '^src/store/', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/(core|store)/' },
    },
    {
      name: 'ingest-imports-only-core-and-dialects',
      comment:
        "An agent's event format is parsed without HTTP or storage, and ingest names no agent: it is handed the agent's facts (ingest/agent).",
      severity: 'error',
      from: { path: '^src/ingest/', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/(core|dialects|ingest)/' },
    },
    {
      name: 'agents-import-only-core-dialects-and-ingest',
      comment:
        "An agent's descriptor (route, schemas, parser, reply, facts) knows its format, not HTTP, storage or the use cases: http and service read the descriptors.",
      severity: 'error',
      from: { path: '^src/agents/', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/(core|dialects|ingest|agents)/' },
    },
    {
      name: 'alerts-import-only-core',
      comment:
        'A webhook delivery (signature, target check, attempt, body) knows no HTTP route, store or dialect.',
      severity: 'error',
      from: { path: '^src/alerts/', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/(core|alerts)/' },
    },
    {
      name: 'tools-import-only-core-and-dialects',
      comment: "A provider format of a dialect's tools knows the dialect, not HTTP or storage.",
      severity: 'error',
      from: { path: '^src/tools/', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/(core|dialects|tools)/' },
    },
    {
      name: 'client-is-standalone',
      comment:
        'src/client is published as its own package (packages/client): it imports only itself.',
      severity: 'error',
      from: { path: '^src/client/', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/client/' },
    },
    {
      name: 'only-an-adapter-imports-its-framework',
      comment:
        'The frameworks are optional peers of agent-todos-client: only their adapter (src/client/adapters/<framework>.ts, its own subpath export) imports one, and nothing else of the client or the CLI imports an adapter.',
      severity: 'error',
      from: {
        path: '^src/(client|cli)',
        pathNot: `^src/client/adapters/(langchain|ai-sdk|openai-agents)\\.ts$|${TEST}`,
      },
      to: {
        path: '^(langchain|@langchain/|ai$|ai/|@openai/agents)|node_modules/(langchain|@langchain|ai|@openai/agents)/|^src/client/adapters/(langchain|ai-sdk|openai-agents)\\.ts$',
      },
    },
    {
      name: 'cli-imports-only-the-client',
      comment: 'The CLI is a client of the HTTP API like any other: it imports only src/client.',
      severity: 'error',
      from: { path: '^src/cli', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/(cli|client)(/|\\.ts$)' },
    },
    {
      name: 'nothing-imports-the-server',
      comment:
        'src/server.ts is the composition root: it starts things, so nothing (tests included) imports it.',
      severity: 'error',
      from: {},
      to: { path: '^src/server\\.ts$' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycle, not even through type-only imports.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '(^dist/|(^|/)node_modules/)' },
  },
}
