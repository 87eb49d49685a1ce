/**
 * speedscope's static release (npm `speedscope`, dist/release: index.html, one script, its CSS,
 * fonts and icons) served from a local HTTP server on 127.0.0.1, with the profiles a test gives
 * beside it, so a page opened at `index.html#profileURL=…` loads everything from that one origin.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize } from 'node:path'

export const SPEEDSCOPE_RELEASE = join(process.cwd(), 'node_modules', 'speedscope', 'dist', 'release')

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
}

/** whether speedscope's release is installed; in CI its absence fails the test file that needs it */
export function requireSpeedscope(what: string): boolean {
  if (existsSync(join(SPEEDSCOPE_RELEASE, 'index.html'))) return true
  const msg = `\n\n!!! ${SPEEDSCOPE_RELEASE} is missing: the ${what} browser test cannot run (npm ci installs the devDependency speedscope) !!!\n`
  if (process.env.CI === 'true') throw new Error(msg)
  console.warn(msg)
  return false
}

export interface ServedProfile {
  /** served at /profiles/<name> */
  name: string
  type: string
  body: string
}

export interface SpeedscopeServer {
  /** http://127.0.0.1:<port> */
  origin: string
  /** the page that opens the profile served as `name`, in speedscope's view `view` */
  pageFor(name: string, view?: 'time-ordered' | 'left-heavy' | 'sandwich'): string
  /** every path asked for, in order */
  served: string[]
  close(): Promise<void>
}

export async function serveSpeedscope(profiles: readonly ServedProfile[]): Promise<SpeedscopeServer> {
  const byPath = new Map(profiles.map((p) => [`/profiles/${p.name}`, p]))
  const served: string[] = []
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname
    served.push(path)
    const profile = byPath.get(path)
    if (profile) {
      res.writeHead(200, { 'content-type': profile.type }).end(profile.body)
      return
    }
    // only the release folder's own files: a path that climbs out of it is not found
    const file = normalize(join(SPEEDSCOPE_RELEASE, path === '/' ? 'index.html' : path))
    if (!file.startsWith(`${SPEEDSCOPE_RELEASE}/`) || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
      return
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    pageFor(name, view) {
      const hash = `profileURL=${encodeURIComponent(`${origin}/profiles/${name}`)}${view ? `&view=${view}` : ''}`
      return `${origin}/index.html#${hash}`
    },
    served,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  }
}
