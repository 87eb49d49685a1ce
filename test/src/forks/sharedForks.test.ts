/**
 * Forks shared by two instances over one Redis (`sharedForkProperties.ts`: concurrent sends,
 * read after write, a restart of every instance, the cap). Under CI a missing Redis fails the test.
 */
import { describe } from 'vitest'
import { sharedForkProperties } from './sharedForkProperties.js'

const REDIS_URL = process.env.REDIS_URL
if (!REDIS_URL && process.env.CI === 'true') throw new Error('REDIS_URL is not set: the shared-fork tests need a real redis-server')

describe.runIf(REDIS_URL)('over one Redis', () => {
  sharedForkProperties(() => REDIS_URL!)
})
