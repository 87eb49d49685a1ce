import { defineConfig } from 'vitest/config'
import base, { CONTAINER_TESTS } from './vitest.config.js'

/** the container tests alone, run after the rest of the suite (see vitest.config.ts) */
export default defineConfig({
  test: { ...base.test, include: CONTAINER_TESTS, exclude: ['**/node_modules/**'] },
})
