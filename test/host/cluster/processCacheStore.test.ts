/**
 * An HTTP process's store among several on memory:// (host/cluster/processCacheStore.ts): the
 * simulations it runs stay in it (no message to the primary on the warm path), a simulation it
 * does not keep is asked of the primary, it answers the primary's lookups from what it keeps, and
 * every other key (fork state, counters) is the primary's. The primary's side is
 * siblingLookup.test.ts; primary.test.ts reads a simulation back through the other process.
 */
import { describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { answerCacheOp } from '../../../host/workers/answerCacheOp.js'
import type { CacheRequest, FromProcess, ToProcess } from '../../../host/protocol.js'
import { createProcessCacheStore } from '../../../host/cluster/processCacheStore.js'

const SIM = 'sim:sim_0b3f2a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b'

/** a process store whose channel records what it sends; `primary` answers its cache requests */
function wired() {
  const sent: FromProcess[] = []
  let listener: (msg: ToProcess) => void = () => undefined
  const primary = createMemoryCacheStore()
  const store = createProcessCacheStore({
    localBytes: 1 << 20,
    simulationBytes: 1 << 20,
    channel: { send: (msg) => sent.push(msg), onMessage: (l) => (listener = l) },
  })
  /** the primary answers every cache request sent so far */
  const answer = async () => {
    for (const msg of sent.splice(0)) {
      if (msg.type === 'cache') await answerCacheOp(primary, msg as CacheRequest, (r) => listener(r))
    }
  }
  return { store, sent, primary, answer, deliver: (msg: ToProcess) => listener(msg) }
}

describe('an HTTP process store among several (memory://)', () => {
  it('keeps the simulations it runs and reads them back without a message', async () => {
    const { store, sent } = wired()
    await store.set(SIM, Uint8Array.of(6, 1, 2), 60)
    expect(await store.get(SIM)).toEqual(Uint8Array.of(6, 1, 2))
    expect(sent).toEqual([])
  })

  it('asks the primary for a simulation it does not keep', async () => {
    const { store, sent, primary, answer } = wired()
    // the primary's view answers a simulation key from the other processes (siblingLookup.ts)
    await primary.set(SIM, Uint8Array.of(9), 60)
    const read = store.get(SIM)
    await new Promise((r) => setImmediate(r))
    expect(sent).toMatchObject([{ type: 'cache', op: 'get', args: [SIM] }])
    await answer()
    expect(await read).toEqual(Uint8Array.of(9))
  })

  it("answers the primary's lookup from the simulations it keeps", async () => {
    const { store, sent, deliver } = wired()
    await store.set(SIM, Uint8Array.of(6, 7), 60)
    deliver({ type: 'lookup', id: 3, key: SIM })
    deliver({ type: 'lookup', id: 4, key: 'sim:sim_unknown' })
    await new Promise((r) => setImmediate(r))
    expect(sent).toEqual([
      { type: 'lookupReply', id: 3, value: Uint8Array.of(6, 7) },
      { type: 'lookupReply', id: 4, value: undefined },
    ])
  })

  it("keeps every other key in the primary's store, and counts there", async () => {
    const { store, sent, primary, answer } = wired()
    const write = store.setMany([
      { key: 'acct:1:0xab', value: Uint8Array.of(1) },
      { key: SIM, value: Uint8Array.of(2) },
    ])
    await new Promise((r) => setImmediate(r))
    expect(sent).toMatchObject([{ type: 'cache', op: 'setMany', args: [[{ key: 'acct:1:0xab' }]] }])
    await answer()
    await write
    expect(await primary.get('acct:1:0xab')).toEqual(Uint8Array.of(1))
    expect(await primary.get(SIM)).toBeUndefined()
    const counted = store.increment('ratelimit:1.2.3.4', 60)
    await new Promise((r) => setImmediate(r))
    await answer()
    expect(await counted).toMatchObject({ count: 1 })
  })
})
