/**
 * A worker pool with a spill directory hands struct logs past DEFAULT_SPILL_THRESHOLD_BYTES to the
 * main thread as files: as objects they would cost the main thread a structured-clone copy and a
 * JSON.stringify each (host/workers/workerPool.ts).
 */
import { readFileSync, closeSync } from 'node:fs'
import type { Address, Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { createEngine } from '../../../engine/index.js'
import { DEFAULT_SPILL_THRESHOLD_BYTES, SPILL_KEY } from '../../../engine/platform/spill/spillFiles.js'
import { claimSpilled } from '../../../host/spill/spillOwnership.js'
import type { Engine, TraceCallParams } from '../../../engine/types.js'
import { createWorkerPoolEngine } from '../../../host/workers/index.js'
import { ON_CHAIN } from '../../../engine/types.js'

const A0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' as Address
const LOOPER = '0x0000000000000000000000000000000000001000' as Address
/** 10 steps per turn (see test/src/respond/streamedTrace.test.ts) */
const loopCode = (turns: number) => `0x600060405262${turns.toString(16).padStart(6, '0')}5b80600052600190038060095700` as Hex
const engineBase = { gasCap: 50_000_000n, rpcTimeoutMs: 10_000, simulationTtlSeconds: 600, maxStructLogSteps: 1_000_000 }

const loopTrace = (turns: number): TraceCallParams => ({
  call: { from: A0, to: LOOPER, data: '0x' },
  block: { tag: 'latest' },
  stateOverrides: { [LOOPER]: { code: loopCode(turns) } },
  tracerConfig: { structLogger: {} },
})
type Logged = { structLogger: { structLogs: unknown } }

let inMemory: Engine
let pool: Engine

beforeAll(async () => {
  inMemory = await createEngine({ ...engineBase, cache: createMemoryCacheStore() })
  // spill configured without a threshold: the pool's own applies to its workers
  pool = await createWorkerPoolEngine({ ...engineBase, cache: createMemoryCacheStore(), cacheUrl: 'memory://', workers: 2, spill: { maxBytes: 2 ** 30 } })
}, 120_000)

afterAll(async () => {
  await Promise.all([inMemory?.close(), pool?.close()])
})

describe('struct logs leaving a worker', () => {
  it('past 64 KiB of JSON: a file, holding the bytes the in-memory engine prints', async () => {
    const expected = JSON.stringify(((await inMemory.traceCall(ON_CHAIN, loopTrace(300))) as Logged).structLogger.structLogs)
    expect(expected.length).toBeGreaterThan(DEFAULT_SPILL_THRESHOLD_BYTES)

    const logs = ((await pool.traceCall(ON_CHAIN, loopTrace(300))) as Logged).structLogger.structLogs as Record<string, string>
    expect(Object.keys(logs)).toEqual([SPILL_KEY])
    const claimed = claimSpilled(logs[SPILL_KEY]!)!
    const text = readFileSync(claimed.fd, 'utf8')
    closeSync(claimed.fd)
    expect(text).toBe(expected)
  })

  it('below it: the array itself (a file would cost more than the copy)', async () => {
    const expected = ((await inMemory.traceCall(ON_CHAIN, loopTrace(5))) as Logged).structLogger.structLogs
    expect(JSON.stringify(expected).length).toBeLessThan(DEFAULT_SPILL_THRESHOLD_BYTES)
    const logs = ((await pool.traceCall(ON_CHAIN, loopTrace(5))) as Logged).structLogger.structLogs
    expect(Array.isArray(logs)).toBe(true)
    expect(logs).toEqual(expected)
  })
})
