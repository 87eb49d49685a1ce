/**
 * A worker that dies mid-call (here: a trace that exhausts the worker's heap bound) fails only
 * its own calls, with INTERNAL_ERROR, never the process; a new worker takes its place.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { EngineError } from '../../../engine/platform/errors.js'
import type { SimulateParams } from '../../../engine/types.js'
import { startWorkerPool, type WorkerPoolEngine } from '../../../host/workers/index.js'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { deploy, engineOptions, requireEngineFacade, pingParams, type Deployed } from './fixtures.js'
import { ON_CHAIN } from '../../../engine/types.js'

const ready = requireAnvil() && requireEngineFacade()

describe.runIf(ready)('worker pool: a worker that dies', () => {
  let anvil: AnvilInstance
  let loop: Deployed
  let pool: WorkerPoolEngine
  const logs: { level: string; msg?: string }[] = []
  const record = (level: string) => (_o: object, msg?: string) => void logs.push({ level, msg })

  const ping = (): SimulateParams => pingParams(loop)

  beforeAll(async () => {
    anvil = await startAnvil()
    loop = await deploy(anvil, 'Loop')
    pool = await startWorkerPool({
      ...engineOptions(anvil.url, createMemoryCacheStore()),
      maxStructLogSteps: 50_000_000,
      logger: { info: record('info'), warn: record('warn'), error: record('error') },
      workers: 2,
      cacheUrl: 'memory://',
      workerMaxHeapMb: 192,
    })
  })
  afterAll(async () => {
    await pool?.close()
    await anvil?.stop()
  })

  it('answers INTERNAL_ERROR for the calls of a worker that ran out of heap, and replaces it', async () => {
    const huge = pool.traceCall(ON_CHAIN, {
      call: { from: DEV_ACCOUNTS[1] as Address, to: loop.address, data: loop.call('spin', [200_000n]) },
      block: { tag: 'latest' },
      tracerConfig: { structLogger: {} },
    })
    const err = await huge.catch((e: unknown) => e)
    expect(err).toBeInstanceOf(EngineError)
    expect((err as EngineError).code).toBe('INTERNAL_ERROR')
    expect(logs.some((l) => l.level === 'warn' && /exited/.test(l.msg ?? ''))).toBe(true)
    for (let i = 0; i < 800 && !pool.stats().workers.every((w) => w.ready); i++) await new Promise((r) => setTimeout(r, 25))
    expect(pool.stats().workers.every((w) => w.ready)).toBe(true)
    const sims = await Promise.all([pool.simulate(ON_CHAIN, ping()), pool.simulate(ON_CHAIN, ping())])
    expect(sims.map((s) => s.status)).toEqual(['success', 'success'])
  })
})
