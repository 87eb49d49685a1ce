/**
 * node-redis, loaded when a Redis connection is first opened or its error is first told apart: a
 * process that keeps its cache in memory (a development node, `CACHE_URL=memory://`) never loads
 * its 1.5 MB. Required, not imported: the package is CommonJS, so the instance is the one an
 * `import … from 'redis'` elsewhere would give, and `instanceof` on its errors holds.
 */
import { createRequire } from 'node:module'

type Redis = typeof import('redis')

let loaded: Redis | undefined

export function redisModule(): Redis {
  loaded ??= createRequire(import.meta.url)('redis') as Redis
  return loaded
}
