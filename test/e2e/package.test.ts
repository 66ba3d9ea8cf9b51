/**
 * The package root is a library: `import 'agent-todos'` exports createApp, the stores and the
 * types and starts nothing (no listening socket, no ./data/); the server is the bin.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import {
  existsSync,
  symlinkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const ROOT = new URL('../..', import.meta.url)
const manifest = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8'))

describe('The agent-todos package root', () => {
  it('Should point main and exports at the library entry, and keep the server a bin', () => {
    assert.equal(manifest.main, 'dist/index.js')
    assert.deepEqual(manifest.exports['.'], {
      types: './dist/index.d.ts',
      default: './dist/index.js',
    })
    assert.equal(manifest.bin['agent-todos-server'], 'dist/server.js')
    assert.equal(manifest.scripts.start, 'node dist/server.js')
  })

  it('Should export the app, the stores and the dialects, and start nothing on import', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'agent-todos-import-'))
    try {
      const entry = new URL('src/index.ts', ROOT).href
      const script = `const m = await import(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(m).sort()))`
      // a started server would keep the process alive past the timeout
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', import.meta.resolve('tsx'), '--input-type=module', '-e', script],
        { cwd, timeout: 15_000, env: { ...process.env, PORT: '0' } }
      )
      const names: string[] = JSON.parse(stdout.trim().split('\n').at(-1)!)
      for (const name of [
        'createApp',
        'createMemoryStore',
        'createSqliteStore',
        'createRedisStore',
        'openStore',
        'DIALECTS',
        'formatTool',
        'applyRound',
      ]) {
        assert.ok(names.includes(name), name)
      }
      assert.equal(existsSync(join(cwd, 'data')), false, 'no ./data/ in the importer folder')
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }
  })

  it('Should let `npm start` run in an installed package, which has dist/ and no src/', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-todos-installed-'))
    const ensure = new URL('scripts/ensure-build.mjs', ROOT).pathname
    const prestart = () =>
      promisify(execFile)(process.execPath, [ensure], { cwd: dir, timeout: 15_000 })
    try {
      await assert.rejects(prestart(), (error: { code: number; stderr: string }) => {
        assert.equal(error.code, 1)
        assert.match(error.stderr, /dist\/server\.js is missing and there is no src\//)
        assert.doesNotMatch(error.stderr, /ENOENT/)
        return true
      })
      mkdirSync(join(dir, 'dist'))
      writeFileSync(join(dir, 'dist', 'server.js'), '')
      const { stderr } = await prestart()
      assert.equal(stderr, '', 'nothing built, nothing said')
      assert.ok(manifest.files.includes('scripts/ensure-build.mjs'), 'prestart ships with it')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("Should label the image with the package version and stop within docker stop's 10 s", () => {
    const dockerfile = readFileSync(new URL('Dockerfile', ROOT), 'utf8')
    assert.match(
      dockerfile,
      new RegExp(`^ARG VERSION=${manifest.version.replaceAll('.', '\\.')}$`, 'm')
    )
    assert.match(
      dockerfile,
      /^ARG NODE_VERSION=20\.\d+$/m,
      'the Node major CI runs, pinned to a minor'
    )
    assert.match(dockerfile, /^STOPSIGNAL SIGTERM$/m)
    const grace = Number(/^ENV SHUTDOWN_GRACE_MS=(\d+)$/m.exec(dockerfile)?.[1])
    assert.ok(grace > 0 && grace < 10_000, `SHUTDOWN_GRACE_MS ${grace} < docker stop's 10 s`)
    for (const label of ['title', 'description', 'source', 'licenses', 'version']) {
      assert.match(dockerfile, new RegExp(`org\\.opencontainers\\.image\\.${label}=`))
    }
  })

  it('Should not bring swagger-ui-dist (and its @scarf/scarf install script) to consumers', async () => {
    assert.equal(manifest.dependencies['swagger-ui-dist'], undefined)
    assert.ok(manifest.devDependencies['swagger-ui-dist'], 'the build copies its files to dist/')
    assert.equal(
      manifest.allowScripts['@scarf/scarf'],
      false,
      'no telemetry in dev installs either'
    )
    const { stdout } = await promisify(execFile)(
      'npm',
      ['ls', '@scarf/scarf', '--omit=dev', '--json', '--package-lock-only'],
      { cwd: new URL('.', ROOT).pathname }
    ).catch((error: { stdout: string }) => error)
    assert.deepEqual(JSON.parse(stdout).dependencies ?? {}, {})
  })

  it("Should copy the docs page's swagger-ui files and their licence into dist/ at build time", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-todos-assets-'))
    try {
      mkdirSync(join(dir, 'src', 'http', 'docs'), { recursive: true })
      writeFileSync(join(dir, 'src', 'http', 'docs', 'index.html'), '<!doctype html>')
      writeFileSync(join(dir, 'package.json'), '{}')
      symlinkSync(new URL('node_modules', ROOT).pathname, join(dir, 'node_modules'))
      await promisify(execFile)(
        process.execPath,
        [new URL('scripts/copy-assets.mjs', ROOT).pathname],
        { cwd: dir, timeout: 15_000 }
      )
      assert.ok(existsSync(join(dir, 'dist', 'http', 'docs', 'index.html')))
      // what src/http/routes/ops.ts serves under /docs/assets/, beside the page it reads
      for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js', 'LICENSE', 'NOTICE']) {
        assert.ok(existsSync(join(dir, 'dist', 'http', 'docs', 'swagger-ui', file)), file)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
