// ESLint: typescript-eslint's type-checked rules over the TypeScript sources, scripts and
// benchmarks; the tests (test/, and those beside their sources: src/**/*.test.ts) and examples
// get the rules that need no types. Formatting is Prettier's (`npm run format`), not ESLint's;
// the layering rules are dependency-cruiser's (.dependency-cruiser.cjs).
import { readFileSync } from 'node:fs'
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

// The files that import the provider SDKs are tsconfig.providers.json's, not tsconfig.json's: the
// SDKs live in test/agents/node_modules, which `npm run lint` does not need installed.
const providers = JSON.parse(
  readFileSync(new URL('tsconfig.providers.json', import.meta.url), 'utf8')
)
// Likewise the framework adapters of the client package, their examples and tests: the frameworks
// are optional peers, installed in test/agents/node_modules only.
const adapters = JSON.parse(
  readFileSync(new URL('tsconfig.adapters.json', import.meta.url), 'utf8')
)

// The tests: test/'s, and those beside their sources (a dialect's, src/dialects/<name>/)
const TESTS = ['test/**/*.ts', 'src/**/*.test.ts']

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'packages/*/dist/',
      '**/node_modules/',
      'openapi/',
      'src/client/schema.ts',
      'test-artifacts/',
      'data/',
      'bench/tmp/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      // one program of the files the type-checked rules lint (tsconfig.lint.json: src without its
      // tests, scripts, bench), read once: the whole tsconfig.json (tests and examples too) took
      // 34 s with two workers, each building it; this 25 s in one
      parserOptions: { project: './tsconfig.lint.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // node:test's describe() and it() return promises the runner awaits itself
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
    },
  },
  {
    // tests read JSON bodies typed `any` on purpose: asserting on them is the point
    files: TESTS,
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    // Type-aware linting costs about what tsc does (here 40 of the 58 s of CPU it took over
    // everything): the tests and examples, half the files, are linted without it; tsc still
    // checks them (npm run typecheck).
    files: [...TESTS, 'examples/**/*.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // packages/client/framework-types: the frameworks' shapes the client package builds its
    // adapters against (packages/client/tsconfig.adapters.json), in no program of the root's
    files: [
      '**/*.{js,mjs,cjs}',
      ...providers.include,
      ...adapters.include,
      'packages/client/framework-types/*.d.ts',
    ],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['src/http/dashboard/**/*.js', 'src/http/docs/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
  {
    // swagger-ui-dist's bundle, loaded by the page before init.js
    files: ['src/http/docs/init.js'],
    languageOptions: { globals: { SwaggerUIBundle: 'readonly' } },
  }
)
