/**
 * The README stays a page one reads through: at most 250 lines. The details live in docs/.
 */
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const MAX_LINES = 250

describe('README.md', () => {
  it(`is at most ${MAX_LINES} lines`, () => {
    const text = readFileSync(join(root, 'README.md'), 'utf8')
    const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length
    expect(lines).toBeGreaterThan(50)
    expect(lines).toBeLessThanOrEqual(MAX_LINES)
  })
})
