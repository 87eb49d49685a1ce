/**
 * An HTTP process's cache store when the instance runs several (src/cluster/primary.ts) on
 * `memory://`: a small local level in front of the primary's store, reached over the process's
 * IPC channel with the same messages a worker thread sends its pool (engine/workers/
 * parentCacheStore.ts). So a simulation stored by one process is read back by id through any
 * other, and a rate limit counts every process's requests together.
 */
import type { CacheStore } from '../../engine/cache/cacheStore.js'
import { createMemoryCacheStore } from '../../engine/cache/memoryCacheStore.js'
import { createTieredCacheStore } from '../../engine/cache/tieredCacheStore.js'
import { createParentCacheStore } from '../../engine/workers/parentCacheStore.js'
import type { ToWorker } from '../../engine/workers/protocol.js'

export function createPrimaryCacheStore(localBytes: number): CacheStore {
  const send = process.send?.bind(process)
  if (!send) throw new Error('createPrimaryCacheStore runs in a forked HTTP process only')
  // a channel already closed (the primary is gone) is a miss after the store's timeout, not a throw
  const primary = createParentCacheStore({ postMessage: (msg) => void send(msg, () => undefined) })
  process.on('message', (msg: ToWorker) => {
    if (msg?.type === 'cacheReply') primary.onReply(msg)
  })
  return createTieredCacheStore(createMemoryCacheStore({ maxBytes: localBytes }), primary)
}
