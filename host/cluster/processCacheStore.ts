/**
 * An HTTP process's cache store when the instance runs several (host/cluster/primary.ts) on
 * `memory://`. Two kinds of keys, two homes:
 *
 * - Stored simulations stay in the process that ran them. Every /simulate stores one, and sending
 *   each to the primary (a message out, a reply back, a third process woken) would cost warm
 *   throughput (docs/performance.md, the row "throughput, all cores against in process"). Reading one back by id
 *   is rare next to that: a miss here asks the primary, which asks the other processes
 *   (siblingLookup.ts). Stored before the answer is sent, a simulation is found by any process as
 *   soon as its client has the id. The price: the simulations of a process that dies go with it
 *   (with Redis, nothing is lost).
 * - Everything else (fork state, headers, hints, token metadata, rate-limit counters) is the
 *   primary's, behind a small local level, reached over the IPC channel with the cache messages a
 *   worker thread sends its pool (host/protocol.ts, host/workers/parentCacheStore.ts): one process's upstream read serves
 *   the others, and a rate limit counts every process's requests together.
 */
import type { CacheStore } from '../../engine/state/store/cacheStore.js'
import { createMemoryCacheStore } from '../cache/memoryCacheStore.js'
import { createTieredCacheStore } from '../cache/tieredCacheStore.js'
import { isSimulationKey } from '../../engine/operations/simulation/simulationStore.js'
import { createParentCacheStore } from '../workers/parentCacheStore.js'
import type { FromProcess, ToProcess } from '../protocol.js'

/** the process's IPC channel to the primary (process itself; a stand-in in tests) */
export interface PrimaryChannel {
  send(msg: FromProcess): void
  onMessage(listener: (msg: ToProcess) => void): void
}

export interface ProcessCacheStoreOptions {
  /** bound of the local level in front of the primary's store, bytes */
  localBytes: number
  /** bound of the simulations this process keeps, bytes */
  simulationBytes: number
  channel?: PrimaryChannel
}

export function createProcessCacheStore(opts: ProcessCacheStoreOptions): CacheStore {
  const channel = opts.channel ?? processChannel()
  const primary = createParentCacheStore({ postMessage: (msg) => channel.send(msg) })
  const shared = createTieredCacheStore(createMemoryCacheStore({ maxBytes: opts.localBytes }), primary)
  const own = createMemoryCacheStore({ maxBytes: opts.simulationBytes })
  channel.onMessage((msg) => {
    if (msg?.type === 'cacheReply') primary.onReply(msg)
    else if (msg?.type === 'lookup') {
      void own.get(msg.key).then((value) => channel.send({ type: 'lookupReply', id: msg.id, value }))
    }
  })

  return {
    // a simulation this process did not run: the primary asks the others
    get: async (key) => (isSimulationKey(key) ? ((await own.get(key)) ?? primary.get(key)) : shared.get(key)),
    async getMany(keys) {
      if (!keys.some(isSimulationKey)) return shared.getMany(keys)
      return Promise.all(keys.map((k) => this.get(k)))
    },
    set: (key, value, ttlSeconds) => (isSimulationKey(key) ? own.set(key, value, ttlSeconds) : shared.set(key, value, ttlSeconds)),
    async setMany(entries) {
      await Promise.all([own.setMany(entries.filter((e) => isSimulationKey(e.key))), shared.setMany(entries.filter((e) => !isSimulationKey(e.key)))])
    },
    increment: (key, windowSeconds, by) => shared.increment(key, windowSeconds, by),
    ping: () => shared.ping(),
    async close() {
      await Promise.all([own.close(), shared.close()])
    },
  }
}

function processChannel(): PrimaryChannel {
  const send = process.send?.bind(process)
  if (!send) throw new Error('createProcessCacheStore runs in a forked HTTP process only')
  return {
    // a channel already closed (the primary is gone) is a miss after the store's timeout, not a throw
    send: (msg) => void send(msg, () => undefined),
    onMessage: (listener) => void process.on('message', listener),
  }
}
