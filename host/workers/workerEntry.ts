/**
 * Where the worker's code is and how to start it. The entry sits next to this file with this
 * file's extension: `dist/host/workers/workerMain.js` when the service runs compiled, and
 * `host/workers/workerMain.ts` under tsx/vitest. For the latter the worker first registers
 * tsx's loader in its own thread (Node 20 does not apply `--import` from a worker's execArgv),
 * resolved to an absolute URL so the working directory does not matter.
 */
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

export interface WorkerEntry {
  /** a module URL, or (eval) a bootstrap script */
  script: URL | string
  eval: boolean
}

export function workerEntry(): WorkerEntry {
  const self = new URL(import.meta.url)
  const isTs = /\.[cm]?ts$/.test(self.pathname)
  const entry = new URL(isTs ? './workerMain.ts' : './workerMain.js', self)
  if (!isTs) return { script: entry, eval: false }
  let tsxApi: string
  try {
    // tsx/esm/api (its ESM build) registers the TypeScript loader for the current thread only
    tsxApi = resolveEsm('tsx/esm/api')
  } catch {
    throw new Error('worker pool: running from TypeScript sources needs tsx (npm i -D tsx) or a build (npm run build)')
  }
  const script = `import(${JSON.stringify(tsxApi)})` + `.then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}) })`
  return { script, eval: true }
}

/** the ESM ("import") target of a package subpath export, as a file URL */
function resolveEsm(specifier: string): string {
  const meta = import.meta as ImportMeta & { resolve?: (s: string) => string }
  if (typeof meta.resolve === 'function') {
    try {
      return meta.resolve(specifier)
    } catch {
      // some runners (vitest) stub import.meta.resolve; fall through to the package's exports
    }
  }
  const [scopeOrName, ...rest] = specifier.split('/')
  const name = scopeOrName!.startsWith('@') ? `${scopeOrName}/${rest.shift()}` : scopeOrName!
  const require = createRequire(import.meta.url)
  const pkgJson = require.resolve(`${name}/package.json`)
  const pkg = JSON.parse(readFileSync(pkgJson, 'utf8')) as { exports?: Record<string, unknown> }
  const target = pkg.exports?.[`.//${rest.join('/')}`] as string | { import?: string | { default?: string } } | undefined
  const file = typeof target === 'string' ? target : typeof target?.import === 'string' ? target.import : target?.import?.default
  if (!file) throw new Error(`cannot resolve ${specifier}`)
  return pathToFileURL(join(dirname(pkgJson), file)).href
}
