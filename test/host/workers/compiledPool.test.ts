/**
 * The production path: the engine and the pool compiled to JavaScript (tsc, as `npm run build`
 * does, into a temporary directory) and run by plain `node` with no TypeScript loader, so the
 * workers start from workerMain.js next to the compiled pool. Forks a real Anvil.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { deploy, requireEngineFacade, type Deployed } from './fixtures.js'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const ready = requireAnvil() && requireEngineFacade()

describe.runIf(ready)('worker pool from compiled JavaScript (dist layout)', () => {
  let anvil: AnvilInstance
  let loop: Deployed
  let dir: string

  beforeAll(async () => {
    anvil = await startAnvil()
    loop = await deploy(anvil, 'Loop')
    dir = mkdtempSync(join(tmpdir(), 'pool-dist-'))
    // only the engine's graph: the build's settings, another output directory
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: join(root, 'tsconfig.json'),
        compilerOptions: {
          outDir: join(dir, 'out'),
          rootDir: root,
          // type roots are looked up from the config's folder: point them back at the project
          typeRoots: [join(root, 'node_modules/@types')],
          sourceMap: false,
          noEmitOnError: false,
          incremental: false,
        },
        files: ['engine/index.ts', 'host/workers/index.ts', 'host/workers/workerMain.ts', 'host/cache/memoryCacheStore.ts'].map((f) => join(root, f)),
        include: [],
      }),
    )
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], {
      encoding: 'utf8',
    })
    // type errors in files still being written elsewhere do not stop the emit; a missing emit does
    if (tsc.status !== 0) console.warn(`tsc reported (emit continues):\n${tsc.stdout.slice(0, 2000)}`)
    writeFileSync(join(dir, 'out', 'package.json'), JSON.stringify({ type: 'module' }))
    symlinkSync(join(root, 'node_modules'), join(dir, 'out', 'node_modules'), 'dir')
  }, 240_000)
  afterAll(async () => {
    await anvil?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('starts two JS workers under plain node and simulates through both', async () => {
    const script = `
      import { startWorkerPool } from './host/workers/index.js'
      import { createMemoryCacheStore } from './host/cache/memoryCacheStore.js'
      const [rpcUrl, to, data, from] = process.argv.slice(2)
      const pool = await startWorkerPool({ rpcUrl, cache: createMemoryCacheStore(), gasCap: 50000000n, rpcTimeoutMs: 20000,
        maxStructLogSteps: 100000, simulationTtlSeconds: 60, workers: 2, cacheUrl: 'memory://' })
      const p = { calls: [{ from, to, data }], block: { tag: 'latest' }, validation: false, traceAssetChanges: false, traceTransfers: false }
      const sims = await Promise.all([pool.simulate({}, p), pool.simulate({}, p)])
      const back = await pool.getSimulation({}, sims[0].simulationId)
      const err = await pool.simulate({}, { ...p, block: { number: 10n ** 12n } }).catch((e) => ({ name: e.name, code: e.code }))
      console.log(JSON.stringify({ sims, back, err, stats: pool.stats(), loader: process.execArgv }))
      await pool.close()
    `
    writeFileSync(join(dir, 'out', 'run.mjs'), script)
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [join(dir, 'out', 'run.mjs'), anvil.url, loop.address, loop.call('ping'), DEV_ACCOUNTS[1]], {
        cwd: tmpdir(), // not the project: nothing may depend on the working directory
        env: { ...process.env, NODE_OPTIONS: '' },
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => (stdout += String(d)))
      child.stderr.on('data', (d) => (stderr += String(d)))
      child.on('exit', (code) => resolve({ code, stdout, stderr }))
    })
    expect(out.code, out.stderr).toBe(0)
    const r = JSON.parse(out.stdout.trim().split('\n').pop()!) as {
      sims: { simulationId: string; status: string; calls: { returnData: string }[] }[]
      back: unknown
      err: { name: string; code: string }
      stats: { workers: { served: number; ready: boolean }[] }
      loader: string[]
    }
    expect(r.loader).toEqual([])
    expect(r.sims.map((s) => s.status)).toEqual(['success', 'success'])
    expect(BigInt(r.sims[0]!.calls[0]!.returnData)).toBe(1n)
    expect(r.back).toEqual(r.sims[0])
    expect(r.err).toEqual({ name: 'EngineError', code: 'BLOCK_NOT_FOUND' })
    expect(r.stats.workers.every((w) => w.ready && w.served >= 1)).toBe(true)
  })
})
