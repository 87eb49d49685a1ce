/**
 * The service's image, built once per set of sources however many test files ask for it: the
 * name carries a hash of everything the Dockerfile copies, and one build runs at a time (a lock
 * directory made atomically by mkdir; the others wait and then find the image in the store).
 * The base image the Dockerfile's FROM names is built first when missing (nodeBaseImage.ts).
 * npm inside the build trusts this machine's certificate bundle ($NODE_EXTRA_CA_CERTS), handed
 * over as a build secret: mounted during `npm ci` only, in no layer of the image.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { dockerfileBaseImage, ensureNodeBaseImage } from './nodeBaseImage.js'
import { PODMAN_GLOBALS, imageExists } from './podman.js'

export const root = fileURLToPath(new URL('../../..', import.meta.url))
/** what the build context holds (.dockerignore lets only these through) */
const CONTEXT = [
  'Dockerfile',
  '.dockerignore',
  'package.json',
  'package-lock.json',
  'patches',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.mjs',
  'config',
  'tracers',
  'engine',
  'host',
  'src',
  'client',
]
const LOCK = join(tmpdir(), 'evm-sim-service-image.lock')
/** the build's times, for the report of how long image builds take */
export const TIMES_FILE = join(tmpdir(), 'evm-sim-service-image.times.json')

function hashTree(hash: ReturnType<typeof createHash>, path: string): void {
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path).sort()) hashTree(hash, join(path, entry))
    return
  }
  hash.update(path.slice(root.length)).update('\0').update(readFileSync(path)).update('\0')
}

export function serviceImageName(): string {
  const hash = createHash('sha256')
  for (const p of CONTEXT) if (existsSync(join(root, p))) hashTree(hash, join(root, p))
  return `localhost/evm-sim-service:test-${hash.digest('hex').slice(0, 16)}`
}

async function withLock<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 20 * 60_000
  for (;;) {
    try {
      mkdirSync(LOCK)
      writeFileSync(join(LOCK, 'pid'), String(process.pid))
      break
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
    const owner = Number(existsSync(join(LOCK, 'pid')) ? readFileSync(join(LOCK, 'pid'), 'utf8') : NaN)
    if (Number.isInteger(owner) && owner > 0 && !alive(owner)) rmSync(LOCK, { recursive: true, force: true })
    if (Date.now() > deadline) throw new Error(`waited 20 minutes for another image build (${LOCK})`)
    await new Promise((r) => setTimeout(r, 500))
  }
  try {
    return await fn()
  } finally {
    rmSync(LOCK, { recursive: true, force: true })
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function build(name: string, log: (line: string) => void): Promise<void> {
  const ca = process.env.NODE_EXTRA_CA_CERTS
  const secret = ca && existsSync(ca) ? ['--secret', `id=npm_ca,src=${ca}`] : []
  // docker format: OCI images drop HEALTHCHECK; host network: npm's registry as this machine reaches it
  const args = [...PODMAN_GLOBALS, 'build', '--format', 'docker', '--pull=never', '--network', 'host', ...secret, '-t', name, root]
  const child = spawn('podman', args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr.on('data', (d: Buffer) => (output += d.toString()))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', (code) => {
      log(
        output
          .split('\n')
          .filter((l) => l.startsWith('STEP'))
          .join('\n'),
      )
      code === 0 ? resolve() : reject(new Error(`podman build exited ${code}:\n${output.slice(-4000)}`))
    })
  })
}

/** the image's name, built (with its base) when the store lacks it */
export async function serviceImage(log: (line: string) => void = console.log): Promise<string> {
  const name = serviceImageName()
  return withLock(async () => {
    if (imageExists(name)) return name
    const baseMs = ensureNodeBaseImage(dockerfileBaseImage(join(root, 'Dockerfile')), log)
    const started = Date.now()
    await build(name, log)
    const times = { baseImageMs: baseMs, serviceImageMs: Date.now() - started }
    writeFileSync(TIMES_FILE, JSON.stringify(times))
    log(`image build times: ${JSON.stringify(times)}`)
    return name
  })
}
