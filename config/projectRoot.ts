/**
 * The project root: the nearest folder above this module holding package.json. Resolved from the
 * module's own location, never from the working directory, so `node dist/src/main.js` started
 * from anywhere (and `tsx src/main.ts`) finds the same config files and version.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

let cached: string | undefined

export function projectRoot(): string {
  if (cached) return cached
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'config'))) return (cached = dir)
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`project root (package.json) not found above ${fileURLToPath(import.meta.url)}`)
    dir = parent
  }
}

/** the service version, from package.json */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version?: string }
  return pkg.version ?? '0.0.0'
}
