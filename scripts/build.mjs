/**
 * `npm run build` / `npm start`: compiles to dist/ so that any number of builds and starts at once
 * in one checkout never see a half-written dist/ (several instances started together would
 * otherwise rebuild over each other and die reading a truncated JSON file).
 *
 * - One build at a time: a lock directory (`.build-lock`, created atomically by mkdir) holds the
 *   builder's pid; the others wait for it (a lock whose pid is gone is stale and taken over).
 * - Never in place: tsc writes to `.dist-tmp-<pid>/`, which replaces dist/ by renames once whole.
 * - `--if-stale` (npm start): no build when dist/ is newer than every source file, so N instances
 *   started together build once and the others start from that build.
 * - `--no-bundle` (the container image, which serves and never runs `evm-sim node`, and installs no
 *   optional dependency, esbuild's binary among them): no bundle of the node's start; the node
 *   then loads its modules one by one (src/cli/node.ts).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const lock = join(root, '.build-lock')
const dist = join(root, 'dist')
const stamp = join(dist, '.build-stamp')
const ifStale = process.argv.includes('--if-stale')
const noBundle = process.argv.includes('--no-bundle')
const SOURCES = ['src', 'host', 'engine', 'tracers', 'config', 'package.json', 'tsconfig.json', 'tsconfig.build.json']

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
const alive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return e.code === 'EPERM'
  }
}

function acquire() {
  const deadline = Date.now() + 10 * 60_000
  for (;;) {
    try {
      mkdirSync(lock)
      writeFileSync(join(lock, 'pid'), String(process.pid))
      return
    } catch (e) {
      if (e.code !== 'EEXIST') throw e
    }
    let owner = NaN
    try {
      owner = Number(readFileSync(join(lock, 'pid'), 'utf8'))
    } catch {
      // the owner is between mkdir and writing its pid: wait
    }
    if (Number.isInteger(owner) && owner > 0 && !alive(owner)) {
      rmSync(lock, { recursive: true, force: true })
      continue
    }
    if (Date.now() > deadline) throw new Error('build: waited 10 minutes for another build (.build-lock); remove it if no build runs')
    sleep(100)
  }
}

/** newest modification time among the build's inputs, ms */
function newestSource(path) {
  const st = statSync(path)
  if (!st.isDirectory()) return st.mtimeMs
  let newest = st.mtimeMs
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestSource(join(path, entry)))
  return newest
}

function upToDate() {
  if (!existsSync(stamp)) return false
  const built = statSync(stamp).mtimeMs
  return SOURCES.every((s) => !existsSync(join(root, s)) || newestSource(join(root, s)) <= built)
}

/** compiles to a temporary directory, bundles the node's start there, and swaps it in; the exit code */
async function build() {
  const tmp = join(root, `.dist-tmp-${process.pid}`)
  rmSync(tmp, { recursive: true, force: true })
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', tmp], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true })
    return r.status ?? 1
  }
  try {
    if (!noBundle) await (await import('./bundle.mjs')).bundleNodeStart(tmp, root)
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true })
    console.error(`build: bundling the node's start failed: ${e.message}`)
    return 1
  }
  writeFileSync(join(tmp, '.build-stamp'), new Date().toISOString())
  // swapped while holding the lock: the only gap (between the renames) is never seen by a start,
  // since every start waits for the lock before it runs dist/
  const old = join(root, `.dist-old-${process.pid}`)
  if (existsSync(dist)) renameSync(dist, old)
  renameSync(tmp, dist)
  rmSync(old, { recursive: true, force: true })
  return 0
}

acquire()
let code = 0
try {
  if (!(ifStale && upToDate())) code = await build()
} finally {
  rmSync(lock, { recursive: true, force: true })
}
process.exitCode = code
