/**
 * GET /v1/ui: the trace viewer, and `/` redirects there. Plain JS modules and CSS from src/ui/
 * plus keccak-256 from the npm package @noble/hashes, all served by this service (no CDN, no
 * framework fetched at run time). The page and its assets need no token; the API calls it makes
 * carry the token the user typed, kept in sessionStorage.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { OpenAPIHono } from '@hono/zod-openapi'
import { projectRoot } from '../../config/projectRoot.js'
import { ApiError } from '../errors/apiError.js'
import type { HttpEnv } from '../httpEnv.js'

export const uiPaths = { page: '/v1/ui', assets: '/v1/ui/assets/' }

const JS = 'text/javascript; charset=utf-8'
const OWN: Record<string, string> = {
  'app.js': JS,
  'tree.js': JS,
  'panels.js': JS,
  'format.js': JS,
  'abiEncode.js': JS,
  'source.js': JS,
  'gas.js': JS,
  'sourcePane.js': JS,
  'debugger.js': JS,
  'lineStepping.js': JS,
  'stepPages.js': JS,
  'stepView.js': JS,
  'viewer.css': 'text/css; charset=utf-8',
}
/** the @noble/hashes ES modules keccak-256 needs (sha3 imports the other two) */
const NOBLE = ['sha3.js', '_u64.js', 'utils.js']

export function registerUi(app: OpenAPIHono<HttpEnv>): void {
  const dir = join(projectRoot(), 'src', 'ui')
  const noble = dirname(createRequire(import.meta.url).resolve('@noble/hashes/sha3.js'))
  const files = new Map<string, { body: Buffer; type: string }>()
  for (const [name, type] of Object.entries(OWN)) files.set(name, { body: readFileSync(join(dir, name)), type })
  for (const name of NOBLE) files.set(`noble/${name}`, { body: readFileSync(join(noble, name)), type: JS })
  const page = readFileSync(join(dir, 'index.html'), 'utf8')

  app.get('/', (c) => c.redirect(uiPaths.page, 302))
  app.get(uiPaths.page, (c) => c.html(page))
  app.get(`${uiPaths.assets}*`, (c) => {
    const file = files.get(c.req.path.slice(uiPaths.assets.length))
    if (!file) throw new ApiError('NOT_FOUND', 'no such viewer asset')
    return c.body(new Uint8Array(file.body), 200, { 'Content-Type': file.type, 'Cache-Control': 'no-cache' })
  })
}
