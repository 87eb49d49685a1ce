/**
 * Stored simulations read back as they were stored, whether kept as JSON (small) or deflated
 * (large), and an id that names nothing — or bytes that are neither — reads as nothing.
 */
import { describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../../../host/cache/memoryCacheStore.js'
import { loadSimulation, newSimulationId, storeSimulation } from '../../../../engine/operations/simulation/simulationStore.js'
import type { SimulationResult } from '../../../../engine/types.js'

function result(logs: number): SimulationResult {
  const log = { address: '0x5fbdb2315678afecb367f032d93f642f64180aa3', topics: [`0x${'ab'.repeat(32)}`], data: `0x${'00'.repeat(32)}`, logIndex: '0x0' }
  return {
    simulationId: newSimulationId(),
    status: 'success',
    blockNumber: '0x10',
    gasUsed: '0x5208',
    calls: [{ callIndex: 0, status: 'success', returnData: '0x', gasUsed: '0x5208', logs: Array.from({ length: logs }, () => ({ ...log })) }],
  } as SimulationResult
}

describe('simulation store', () => {
  it('reads back a small result (kept as JSON) and a large one (deflated) unchanged', async () => {
    const cache = createMemoryCacheStore()
    const small = result(1)
    const large = result(200)
    await storeSimulation(cache, small, 60)
    await storeSimulation(cache, large, 60)
    const smallBytes = await cache.get(`sim:${small.simulationId}`)
    const largeBytes = await cache.get(`sim:${large.simulationId}`)
    // the small one is its JSON behind one marker byte; the large one is far smaller than its JSON
    expect(smallBytes!.byteLength).toBe(JSON.stringify(small).length + 1)
    expect(largeBytes!.byteLength).toBeLessThan(JSON.stringify(large).length / 5)
    expect(await loadSimulation(cache, small.simulationId)).toEqual(small)
    expect(await loadSimulation(cache, large.simulationId)).toEqual(large)
  })

  it('an unknown id, a malformed id and unreadable bytes read as nothing', async () => {
    const cache = createMemoryCacheStore()
    const id = newSimulationId()
    expect(await loadSimulation(cache, id)).toBeUndefined()
    expect(await loadSimulation(cache, 'sim_not-an-id')).toBeUndefined()
    await cache.set(`sim:${id}`, new Uint8Array([0x06, 0x7b, 0x7b]), 60)
    expect(await loadSimulation(cache, id)).toBeUndefined()
    await cache.set(`sim:${id}`, new Uint8Array([0xff, 0x00, 0x13]), 60)
    expect(await loadSimulation(cache, id)).toBeUndefined()
  })
})
