import { defineConfig } from 'vitest/config'

// Integration tests start real processes (Anvil, redis-server, chromium): give them room,
// and run files in separate forks so one file's servers never leak into another's.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
})
