/**
 * The block trace (engine/operations/trace/traceService.ts traceBlock over engine/run/openBlock.ts) on the
 * devnet: a transaction whose trace is refused answers `{txHash, error}`, and the transactions
 * after it are still traced on the state it left (it is applied untraced) with their logs
 * numbered after its logs.
 */
import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDevnet, type Devnet } from '../../../../engine/chains/devnet/devnetChain.js'
import { createTraceService } from '../../../../engine/operations/trace/traceService.js'

type Frame = { logs?: { index: string }[] }

describe('traceBlock', () => {
  let devnet: Devnet
  beforeAll(async () => {
    devnet = await createDevnet()
  })
  afterAll(() => devnet?.close())

  it('answers {txHash, error} for a transaction it cannot trace and goes on with the next ones', async () => {
    const roomy = createTraceService(devnet, { gasCap: 50_000_000n, maxStructLogSteps: 1_000_000 })
    const config = { structLogger: { disableMemory: true }, callTracer: { withLog: true } }
    // block 5: a DEMO transfer, then an NFT transfer; the struct log of the longer one is refused
    const full = await roomy.traceBlock({ block: { number: 5n }, tracerConfig: config })
    expect(full).toHaveLength(2)
    const steps = full.map((e) => ('result' in e ? (e.result.structLogger as { structLogs: unknown[] }).structLogs.length : -1))
    expect(steps[0]).not.toBe(steps[1])
    const longer = steps[0]! > steps[1]! ? 0 : 1
    const tight = createTraceService(devnet, { gasCap: 50_000_000n, maxStructLogSteps: Math.min(...steps) })
    const entries = await tight.traceBlock({ block: { number: 5n }, tracerConfig: config })
    expect(entries.map((e) => e.txHash)).toEqual(full.map((e) => e.txHash))
    expect(entries[longer]).toEqual({ txHash: full[longer]!.txHash, error: `struct log exceeds the limit of ${Math.min(...steps)} steps` })
    // the other one is exactly what the roomy trace gave: state and log numbering as if traced
    expect(entries[1 - longer]).toEqual(full[1 - longer])
    const indexes = full.map((e) => ('result' in e ? ((e.result.callTracer as Frame).logs ?? []).map((l) => l.index) : []))
    expect(indexes[0]!.length).toBeGreaterThan(0)
    expect(indexes[1]![0]).toBe(`0x${indexes[0]!.length.toString(16)}`)
  })

  it('takes a block by hash and refuses an unknown one', async () => {
    const traces = createTraceService(devnet, { gasCap: 50_000_000n, maxStructLogSteps: 1000 })
    const header = await devnet.resolveBlock({ number: 4n })
    const byHash = await traces.traceBlock({ block: { hash: header.hash }, tracerConfig: { callTracer: {} } })
    expect(byHash).toEqual(await traces.traceBlock({ block: { number: 4n }, tracerConfig: { callTracer: {} } }))
    const unknown = `0x${'ee'.repeat(32)}` as Hex
    await expect(traces.traceBlock({ block: { hash: unknown }, tracerConfig: {} })).rejects.toMatchObject({
      code: 'BLOCK_NOT_FOUND',
      message: `block ${unknown} not found`,
    })
  })
})
