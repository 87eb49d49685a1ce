/**
 * The cache store reached by message (host/workers/parentCacheStore.ts) and the store's side
 * (answerCacheOp.ts): reads always wait for their reply; writes wait too, unless the store was
 * made with `oneWayWrites` (a worker thread's), when they are sent with `oneWay` and answered with
 * nothing. The pool test (workerPool.test.ts) shows a simulation stored through one worker read
 * back through the other with one-way writes.
 */
import { describe, expect, it } from 'vitest'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { answerCacheOp } from '../../../host/workers/answerCacheOp.js'
import { createParentCacheStore } from '../../../host/workers/parentCacheStore.js'
import type { CacheReply, CacheRequest, FromWorker } from '../../../host/protocol.js'

/** a store and the port it posts to, answered by a memory store when `deliver` is called */
function wired(oneWayWrites: boolean) {
  const sent: FromWorker[] = []
  const backing = createMemoryCacheStore()
  const replies: CacheReply[] = []
  const store = createParentCacheStore({ postMessage: (msg) => sent.push(msg) }, { oneWayWrites, timeoutMs: 60_000 })
  const deliver = async () => {
    for (const msg of sent.splice(0)) if (msg.type === 'cache') await answerCacheOp(backing, msg as CacheRequest, (r) => replies.push(r))
    for (const r of replies.splice(0)) store.onReply(r)
  }
  return { store, sent, backing, deliver }
}

const settled = async (p: Promise<unknown>) => {
  let done = false
  void p.then(() => (done = true))
  await new Promise((r) => setImmediate(r))
  return done
}

describe('a cache store reached by message', () => {
  it('waits for the reply to a write by default', async () => {
    const { store, sent, backing, deliver } = wired(false)
    const write = store.set('k', Uint8Array.of(1), 60)
    expect(sent).toMatchObject([{ type: 'cache', op: 'set' }])
    expect((sent[0] as { oneWay?: true }).oneWay).toBeUndefined()
    expect(await settled(write)).toBe(false)
    await deliver()
    await write
    expect(await backing.get('k')).toEqual(Uint8Array.of(1))
  })

  it('with oneWayWrites, a write is sent one way and not waited for; a read still waits for its answer', async () => {
    const { store, sent, backing, deliver } = wired(true)
    expect(await settled(store.set('k', Uint8Array.of(2), 60))).toBe(true)
    expect(await settled(store.setMany([{ key: 'm', value: Uint8Array.of(3) }]))).toBe(true)
    expect(sent).toMatchObject([
      { type: 'cache', op: 'set', oneWay: true },
      { type: 'cache', op: 'setMany', oneWay: true },
    ])
    // the store applies them, in order, before anything sent after them on the same port
    const read = store.get('k')
    expect(await settled(read)).toBe(false)
    await deliver()
    expect(await read).toEqual(Uint8Array.of(2))
    expect(await backing.get('m')).toEqual(Uint8Array.of(3))
  })

  it('the store answers every operation but a one-way one', async () => {
    const backing = createMemoryCacheStore()
    const replies: CacheReply[] = []
    const ask = (msg: Omit<CacheRequest, 'type'>) => answerCacheOp(backing, { type: 'cache', ...msg }, (r) => replies.push(r))
    await ask({ id: 0, op: 'set', args: ['a', Uint8Array.of(4)], oneWay: true })
    expect(replies).toEqual([])
    await ask({ id: 7, op: 'get', args: ['a'] })
    expect(replies).toEqual([{ type: 'cacheReply', id: 7, ok: true, value: Uint8Array.of(4) }])
  })
})
