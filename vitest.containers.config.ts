import { defineConfig } from 'vitest/config'
import base, { CONTAINER_TESTS } from './vitest.config.js'

/**
 * the container tests alone, run after the rest of the suite (see vitest.config.ts), one file at a
 * time: the image's start is timed with no container of the other file starting
 */
export default defineConfig({
  test: { ...base.test, include: CONTAINER_TESTS, exclude: ['**/node_modules/**'], fileParallelism: false },
})
