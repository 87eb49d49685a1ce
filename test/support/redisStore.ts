/**
 * A Redis cache store a test can rely on from its first command. The store treats a connection
 * not yet made, or a command slower than its time limit, as a miss (so a slow Redis never slows a
 * request); a test of what instances share through Redis must not mistake that for nothing shared,
 * so it waits for the connection and gives each command the time a loaded CI machine needs.
 */
import { createRedisCacheStore, type RedisCacheStore } from '../../host/cache/redisCacheStore.js'

export async function connectedRedisStore(url: string, prefix: string): Promise<RedisCacheStore> {
  const store = createRedisCacheStore({ url, prefix, opTimeoutMs: 5_000 })
  for (let i = 0; i < 200 && !store.ready; i++) await new Promise((r) => setTimeout(r, 25))
  if (!store.ready) {
    await store.close()
    throw new Error(`redis at ${url} did not accept a connection within 5 s`)
  }
  return store
}
