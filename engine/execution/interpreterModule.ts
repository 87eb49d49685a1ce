/**
 * The prototype of ethereumjs' Interpreter, from the very module the EVM imports: the hooks of
 * leanStepHook.ts, evmTables.ts and runStop.ts patch it. The package does not export the module,
 * so it is reached by file URL next to the package entry; undefined when it is not there. The
 * command line's bundle (scripts/bundle.mjs) gives this module a body that imports the same file
 * statically, so that the bundle holds the Interpreter once, shared with the EVM it bundles.
 */
import { createRequire } from 'node:module'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

export async function interpreterPrototype(): Promise<object | undefined> {
  const entry = createRequire(import.meta.url).resolve('@ethereumjs/evm') // …/dist/cjs/index.js
  const file = join(dirname(entry), '..', 'esm', 'interpreter.js')
  if (!existsSync(file)) return undefined
  const mod = (await import(pathToFileURL(file).href)) as { Interpreter?: { prototype: object } }
  return mod.Interpreter?.prototype
}
