import { defineConfig } from 'vitest/config'

/**
 * Tests that run containers, one of them measuring a container's start on a quiet machine: `npm
 * test` runs them after every other file, one at a time (vitest.containers.config.ts), so the
 * image's start is timed without the rest of the suite competing for the two cores.
 */
export const CONTAINER_TESTS = ['test/deploy/image.test.ts', 'test/deploy/composeUp.test.ts']

// Integration tests start real processes (Anvil, redis-server, chromium): give them room,
// and run files in separate forks so one file's servers never leak into another's.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...CONTAINER_TESTS],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
})
